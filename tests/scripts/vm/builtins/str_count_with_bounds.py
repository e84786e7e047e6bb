# str.count as CPython counts: non-overlapping occurrences in s[start:end] (negative bounds from the end), the empty
# string once between every two characters and at both ends.
# expect: 2 1 4 1 0 3 1
s = "ChildClass"
print(s.count("C"), s.count("ss"), "aaaa".count("a"), "aaaa".count("aa", 1), s.count("C", 1, 5), "ab".count(""), s.count("s", -1))
