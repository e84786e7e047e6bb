# torch.compile(opt.step) against the eager step on the cpu (tests/scripts/_lib/optimizer_steps.py): parameters and state
# after four steps of SGD (foreach), Nesterov SGD, Adam (fused=True) and AdamW. Every step compiles as AOT Autograd's
# inference graph, none runs on the eager runtime, and the inductor's code is a few horizontally fused kernels over
# every parameter (Adam's step counters, then one combo kernel whose parts update each parameter and its state).
# expect code: _inference']
# expect no code: runs on the eager runtime
# expect code: cwb_for_fused_
# expect kernels_at_most: 2
# expect: sgd inductor float32 True
# expect: nesterov aot_eager float32 True
# expect: adam inductor float32 True
# expect: adamw inductor float32 True
# expect: adamw aot_eager float32 True
# expect: adam inductor bfloat16 True
from _lib.optimizer_steps import every_step_equals_eager

every_step_equals_eager("cpu")
