# An exception raised while handling another: both print, joined as Python joins them.
def parse(text):
    try:
        return int(text)
    except ValueError:
        return undefined_fallback


parse("x")
