# Shim so Beam can stage this checkout to remote workers with --setup_file ./setup.py;
# all metadata lives in setup.cfg.
from setuptools import setup

setup()
