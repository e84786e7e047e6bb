# A user-defined exception class raised with a cause.
class ConfigError(Exception):
    pass


def load(name):
    try:
        return {"a": 1}[name]
    except KeyError as e:
        raise ConfigError(f"unknown config {name!r}") from e


load("b")
