"""RAGRAF: a code knowledge base for coding agents."""

__version__ = "0.1.0"
