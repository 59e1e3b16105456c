"""The version of fdc, recorded in every manifest and report it writes. See docs/architecture.md."""

__version__ = "0.1.0"
