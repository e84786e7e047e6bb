# Allocates Python objects without end: MemoryError under the memory cap, not an out-of-memory kill.
chunks = []
while True:
    chunks.append([0] * 1000000)
