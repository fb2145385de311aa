"""eaglekit: compliant synthetic training data, training and serving for EAGLE-3 draft heads."""
__version__ = "0.1.0"
