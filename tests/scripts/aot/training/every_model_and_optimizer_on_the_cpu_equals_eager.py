# Compiled training steps against eager on the cpu (tests/scripts/_lib/device_training.py): the MLP, the
# LayerNorm/GELU/cross-entropy block, the causal attention block and the recorded-derivative ops, three steps of
# SGD, Adam or AdamW, float32 and bfloat16, inductor and aot_eager; each case compiles as one AOT joint graph.
# expect code_count 9: # AOT Autograd: joint graph
# expect: mlp inductor sgd float32 True
# expect: mlp aot_eager adam float32 True
# expect: block inductor adamw float32 True
# expect: block aot_eager sgd float32 True
# expect: attention inductor sgd float32 True
# expect: recorded inductor sgd float32 True
# expect: recorded aot_eager adamw float32 True
# expect: mlp inductor adamw bfloat16 True
# expect: block inductor adam bfloat16 True
from _lib.device_training import every_case_equals_eager

every_case_equals_eager("cpu")
