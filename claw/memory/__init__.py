"""Memory: an index over MEMORY.md and memory/*.md, hybrid search over it, tools and per-turn recall."""
