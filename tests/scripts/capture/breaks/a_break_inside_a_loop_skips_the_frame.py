# A graph break inside a for loop has no resume point in Dynamo: the frame is skipped and runs eagerly from then
# on ("graph break in loop", gb7000 after the first break), so a second call compiles nothing and counts nothing.
# expect: [4.0, 6.0] [0, 1, 2]
# expect: [4.0, 6.0] [0, 1, 2, 0, 1, 2]
# expect unique_graphs: 0
# expect log: Graph Break Reason: Failed to handle graph break gracefully. Skipping the function and falling back to eager.
# expect log: graph break in loop
# expect log: Developer debug context: frame skipped: loop_break (capture/breaks/a_break_inside_a_loop_skips_the_frame.py line 12)
import torch


def loop_break(x, log):
    acc = x
    for i in range(3):
        acc = acc * 2 + i
        log.append(i)
        if i == 1:
            torch._dynamo.graph_break()
    return acc


opt = torch.compile(loop_break, backend="eager")
log = []
x = torch.tensor([0.0, 0.25])
print(opt(x, log).tolist(), log)
print(opt(x, log).tolist(), log)
