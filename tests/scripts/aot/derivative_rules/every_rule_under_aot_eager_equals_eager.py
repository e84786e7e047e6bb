# Every derivative rule of the joint graph (tests/scripts/_lib/derivative_rules.py) compiled with aot_eager against the
# eager runtime's autograd: the loss and every input's gradient; each function compiles as one AOT joint graph.
# expect code_count 21: # AOT Autograd: joint graph
# expect: f_add True
# expect: f_mul_div True
# expect: f_pow True
# expect: f_matmul True
# expect: f_mm_bmm True
# expect: f_linear True
# expect: f_activations True
# expect: f_math True
# expect: f_reductions True
# expect: f_softmaxes True
# expect: f_layer_norm True
# expect: f_cross_entropy True
# expect: f_views True
# expect: f_broadcast True
# expect: f_masked True
# expect: f_split True
# expect: f_embedding True
# expect: f_embedding_padding True
# expect: f_attention True
# expect: f_indexing True
# expect: f_recorded True
from _lib.derivative_rules import every_rule_equals_eager

every_rule_equals_eager("aot_eager")
