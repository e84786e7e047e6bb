# Class bodies record their annotations; a function's local annotations are not evaluated.
# expect: {'x': <class 'int'>, 'y': <class 'typing.Optional'>} None True True
# expect: 1
from typing import Any, Dict, List, Optional
class A:
    x: int
    y: Optional[List[int]] = None
    z = 3
print(A.__annotations__, A.y, isinstance([], List), Dict is dict)
def f(a: Any) -> Dict[str, int]:
    b: undefined_name = 1
    return b
print(f(0))
