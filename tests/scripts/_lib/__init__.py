# Modules the test programs share (`from _lib.NAME import ...`): the runner puts tests/scripts/ on their module
# search path; nothing in this folder is a test itself.
