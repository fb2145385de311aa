"""Serving: the SGLang/vLLM launchers, the embedded EAGLE-3 engine, its HTTP API and benchmarks."""
