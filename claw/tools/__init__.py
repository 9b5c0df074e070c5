"""Built-in tools. Each tool is one module; `builtin_tools()` lists them."""
