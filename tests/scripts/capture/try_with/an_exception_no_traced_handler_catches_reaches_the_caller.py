# A traced raise that no handler of the compiled frame catches (a helper's KeyError past an `except ValueError`)
# leaves the frame: the graph breaks ("Observed exception") and the interpreter raises it, so the caller catches
# the very exception eager code raises, with its arguments.
# expect: caught outside KeyError ('k',)
# expect log: Observed exception
import torch


def helper(x):
    raise KeyError("k")


@torch.compile(backend="eager")
def g(x):
    try:
        return helper(x)
    except ValueError:
        return x


try:
    g(torch.ones(2))
except KeyError as error:
    print("caught outside KeyError", error.args)
