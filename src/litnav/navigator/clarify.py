"""Asking the user one clarifying question in the terminal (rich prompt)."""

from __future__ import annotations

from rich.console import Console
from rich.markup import escape
from rich.prompt import Prompt


def terminal_ask(question: str, options: list[str], default: str, console: Console | None = None) -> str:
    """Print ``question`` with numbered ``options`` and return the option chosen (Enter takes
    ``default``, which must be one of ``options``). Reads stdin; raises ``ValueError`` when
    ``default`` is not an option."""
    if default not in options:
        raise ValueError(f"default {default!r} is not one of {options}")
    console = console or Console(stderr=True)
    console.print(f"[bold]{escape(question)}[/bold]")
    for i, option in enumerate(options, 1):
        console.print(f"  {i}. {escape(option)}" + ("  [dim](default)[/dim]" if option == default else ""))
    choice = Prompt.ask("Choose", choices=[str(i) for i in range(1, len(options) + 1)],
                        default=str(options.index(default) + 1), console=console)
    return options[int(choice) - 1]
