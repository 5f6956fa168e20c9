# Runs a command and prints its exit code after its output, for FileCheck
# (lit's `not` only says "non-zero"; the CLI convention says 2).
"$@"
echo "rc=$?"
