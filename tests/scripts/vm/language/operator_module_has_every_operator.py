# The operator module's functions, in-place forms included (iadd on a list extends it in place).
# expect: 8 4 2 5 4 3 3 32 3 True False
# expect: [1, 2] True
import operator
print(operator.lshift(1, 3), operator.rshift(16, 2), operator.and_(6, 3), operator.or_(4, 1),
      operator.xor(5, 1), operator.isub(5, 2), operator.ifloordiv(7, 2), operator.ipow(2, 5),
      operator.imod(7, 4), operator.le(2, 2), operator.ne(1, 1))
xs = [1]
ys = operator.iadd(xs, [2])
print(xs, ys is xs)
