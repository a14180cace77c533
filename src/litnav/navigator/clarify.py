"""Asking the user one clarifying question in the terminal (rich prompt)."""

from __future__ import annotations

from rich.console import Console
from rich.markup import escape
from rich.prompt import Prompt


def terminal_ask(question: str, options: list[str], default: str, console: Console | None = None) -> str:
    """Print ``question`` with numbered ``options`` and return the option chosen by its number or
    as written ("2", "b", "[b]" or "branch b" for a one-letter option; any case), Enter taking
    ``default``, which must be one of ``options``.
    Reads stdin; raises ``ValueError`` when ``default`` is not an option, ``EOFError`` or
    ``KeyboardInterrupt`` when the reader gives up."""
    if default not in options:
        raise ValueError(f"default {default!r} is not one of {options}")
    console = console or Console(stderr=True)
    console.print(f"[bold]{escape(question)}[/bold]")
    for i, option in enumerate(options, 1):
        console.print(f"  {i}. {escape(option)}" + ("  [dim](default)[/dim]" if option == default else ""))
    numbers = [str(i) for i in range(1, len(options) + 1)]
    said = {o.lower(): o for o in options}
    said |= {form: o for o in options if len(o) == 1 for form in (f"[{o}]".lower(), f"branch {o}".lower())}
    choice = Prompt.ask(f"Choose 1-{len(options)} or an option", choices=numbers + list(said), case_sensitive=False,
                        show_choices=False, default=str(options.index(default) + 1), console=console)
    return options[int(choice) - 1] if choice in numbers else said[choice.lower()]
