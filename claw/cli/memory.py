"""`claw memory search|index|status`: the agent's memory index, from the terminal."""

from __future__ import annotations

from typing import Any

import typer

from claw.cli.common import AgentOption, JsonOption
from claw.untrusted import shown

app = typer.Typer(help="Search and maintain the memory index (MEMORY.md and memory/*.md).", no_args_is_help=True)


def _call(agent_id: str, method: str, **params: Any) -> Any:
    """One gateway method for `agent_id`, through the running gateway when there is one."""
    from claw.cli.gateway_call import call_agent_method

    return call_agent_method(agent_id, method, **params)


@app.command("search")
def search(
    query: str = typer.Argument(..., help="What to look for."),
    agent_id: str = AgentOption,
    max_results: int | None = typer.Option(None, "--max-results", "-n", min=1, max=100, help="At most this many."),
    min_score: float | None = typer.Option(None, "--min-score", min=0.0, max=1.0, help="Drop weaker hits."),
    explain: bool = typer.Option(
        False, "--explain", help="Show how each score was made: the raw BM25, the keyword and vector parts."
    ),
    json_out: bool = JsonOption,
) -> None:
    """Hybrid search over the agent's memory files (keyword-only when no embeddings are configured)."""
    from claw.errors import UsageError

    if not query.strip():
        raise UsageError("the query is empty: say what to look for")
    params: dict[str, Any] = {"query": query, "explain": explain}
    if max_results is not None:
        params["maxResults"] = max_results
    if min_score is not None:
        params["minScore"] = min_score
    found = _call(agent_id, "memory.search", **params)
    if json_out:
        from claw.cli.common import print_json

        print_json(found)
        return
    weights = found["weights"]
    mode = found["mode"]
    if mode == "hybrid":
        print(f"hybrid search ({found['model']}): {weights['vector']:.2f} vector + {weights['text']:.2f} keyword")
    else:
        print(found.get("note") or "keyword-only search")
    if not found["results"]:
        print("No matches.")
        return
    for n, hit in enumerate(found["results"], start=1):
        heading = f"  · {hit['heading']}" if hit.get("heading") else ""
        print(f"\n{n}. {shown(hit['citation'])}  score {hit['score']:.3f}{shown(heading)}")
        if explain:
            for line in _explanation(hit, weights, hybrid=mode == "hybrid"):
                print(f"   {line}")
        for line in hit["snippet"].splitlines()[:6]:  # the agent's own writing: no escape sequences through
            print(f"   {shown(line)}")


def _explanation(hit: dict[str, Any], weights: dict[str, float], *, hybrid: bool) -> list[str]:
    """How a hit's score was made, by the rule in `claw.memory.search`, with the raw BM25 behind it."""
    keyword = f"keyword {hit['textScore']:.3f}"
    if hybrid:
        vector = "—" if hit["vectorScore"] is None else f"{hit['vectorScore']:.3f}"
        weighted = f"{weights['vector']:.2f} × vector {vector} + {weights['text']:.2f} × {keyword}"
        formula = f"= max({weighted}, {keyword})" if weights["text"] > 0 else f"= {weighted}"
    else:
        formula = f"= {keyword}"
    if hit["bm25"] is None:
        detail = f"{keyword}: none of the query's words are in this chunk"
    else:
        detail = (
            f"{keyword} = bm25 {hit['bm25']:.4g} / {hit['bestBm25']:.4g}, the best bm25 for this query "
            "(SQLite FTS5 bm25: negative, lower is a better match)"
        )
    return [formula, detail]


@app.command("index")
def index(
    agent_id: str = AgentOption,
    force: bool = typer.Option(False, "--force", help="Rebuild the index from scratch."),
    json_out: bool = JsonOption,
) -> None:
    """Bring the index up to date with the memory files (it also updates itself before every search)."""
    report = _call(agent_id, "memory.index", force=force)
    if json_out:
        from claw.cli.common import print_json

        print_json(report)
        return
    status = report["status"]
    action = "Rebuilt" if report["rebuilt"] else "Updated"
    print(
        f"{action} {status['index']}: {len(report['changed'])} file(s) reindexed, {len(report['removed'])} removed; "
        f"{status['files']} files, {status['chunks']} chunks, {status['vectors']} with vectors."
    )
    if report["embeddingError"]:
        print(f"warning: {report['embeddingError']} (search stays keyword-only until it works)")


@app.command("status")
def status(agent_id: str = AgentOption, json_out: bool = JsonOption) -> None:
    """Files and chunks indexed, when it was last indexed, and whether embeddings are on."""
    found = _call(agent_id, "memory.status")
    if json_out:
        from claw.cli.common import print_json

        print_json(found)
        return
    emb = found["embeddings"]
    embeddings = f"on ({emb['model']} via {emb['provider']})" if emb["enabled"] else "off (keyword-only search)"
    print(f"Workspace:    {found['workspace']}")
    print(f"Index:        {found['index']}")
    print(f"Files:        {found['files']}")
    print(f"Chunks:       {found['chunks']} ({found['vectors']} with vectors)")
    print(f"Last indexed: {found['lastIndexed'] or 'never'}")
    print(f"Embeddings:   {embeddings}")
    if emb.get("error"):
        print(f"Warning:      {emb['error']}")
