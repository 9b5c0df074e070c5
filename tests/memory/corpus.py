"""A small fixed memory corpus, and the file each of its queries must rank first."""

from __future__ import annotations

from pathlib import Path

FILES: dict[str, str] = {
    "MEMORY.md": """# MEMORY.md: long-term memory

## People
<!-- - Example: Sam's brother, lives in Oslo -->
- Alex is Sam's sister; she lives in Lisbon and her birthday is on 14 March.
- Priya is a friend from the climbing gym.

## Preferences
- Prefers small pull requests and tea over coffee.
""",
    "memory/2025-01-05.md": """# 2025-01-05
- Home server: the NAS runs Debian; nightly backups go to Backblaze B2 with restic.
- Backup retention: 30 daily snapshots, 12 monthly.
""",
    "memory/2025-01-12.md": """# 2025-01-12
- Ledger project: decided on Postgres over MySQL for the ledger database (better JSON support).
- Schema migrations with alembic.
""",
    "memory/2025-01-20.md": """# 2025-01-20
- Trip to Kyoto in April: booked a ryokan near Gion for four nights.
- Buy the JR rail pass before leaving.
""",
    "memory/2025-02-03.md": """# 2025-02-03
- The heating is broken: the radiator in the bedroom stays cold. Asked Dana, the landlord, to send a plumber.
- Waiting on the landlord's reply.
""",
    "memory/2025-02-10.md": """# 2025-02-10
- Dentist appointment on 3 March at 9:30 about the wisdom tooth.
""",
    "memory/2025-02-14.md": """# 2025-02-14
- Baking: the sourdough starter likes 75% hydration; feed it twice a day.
""",
    "memory/2025-02-20.md": """# 2025-02-20
- Car maintenance: new Michelin tyres fitted; next oil change at 15,000 km.
""",
    "memory/2025-03-01.md": """# 2025-03-01
- Went hiking on Mount Tamalpais with Priya; the trail was muddy but the weather was sunny.
""",
    "memory/2025-03-05.md": """# 2025-03-05
- Guitar lessons with Marco: practising Blackbird, fingerstyle, slowly with a metronome.
""",
    "memory/2025-03-09.md": """# 2025-03-09
- Tax return: the deadline is 30 April; send the receipts to Helen, the accountant.
""",
    "memory/2025-03-12.md": """# 2025-03-12
- Incident: the kubernetes cluster upgrade broke etcd; we did a rollback to 1.29 and wrote a postmortem.
""",
    "memory/projects/garden.md": """# Garden
- Tomatoes and basil in the raised beds; compost from the kitchen bin.
- Watering schedule: every other evening in summer.
""",
    "memory/README.md": """# memory/: daily notes
One file per day. Lasting facts belong in MEMORY.md. The ledger, the garden and the tax return live here.
""",
}

QUERIES: list[tuple[str, str]] = [
    ("which database did we choose for the ledger", "memory/2025-01-12.md"),
    ("backups of the NAS", "memory/2025-01-05.md"),
    ("Kyoto trip", "memory/2025-01-20.md"),
    ("radiator heating landlord", "memory/2025-02-03.md"),
    ("dentist appointment", "memory/2025-02-10.md"),
    ("sourdough starter", "memory/2025-02-14.md"),
    ("tyres and oil change", "memory/2025-02-20.md"),
    ("hike with Priya", "memory/2025-03-01.md"),
    ("Blackbird guitar practice", "memory/2025-03-05.md"),
    ("tax deadline accountant", "memory/2025-03-09.md"),
    ("etcd rollback incident", "memory/2025-03-12.md"),
    ("when is Alex's birthday", "MEMORY.md"),
    ("tomatoes compost", "memory/projects/garden.md"),
]


def write_corpus(workspace: Path) -> None:
    for rel, text in FILES.items():
        path = workspace / rel
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text, encoding="utf-8")
