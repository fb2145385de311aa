"""`python -m eaglekit.cli ...` (and `torchrun ... -m eaglekit.cli train ...`): the eaglekit command."""
from eaglekit.cli import main

main()
