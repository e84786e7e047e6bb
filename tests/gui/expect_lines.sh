# Sourced by the GUI test scripts: expect_lines DUMP NAME LINE... counts (in $failures) each LINE, a fixed string,
# that the window's text dump DUMP (of the run NAME) does not show.
expect_lines() {
  local dump=$1 name=$2 line
  shift 2
  for line in "$@"; do
    if ! grep -qF -- "$line" "$dump"; then
      echo "FAIL $name: the window does not show: $line"; failures=$((failures + 1))
    fi
  done
}
