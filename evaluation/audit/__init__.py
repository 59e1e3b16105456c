"""`fdc audit`: every task of a suite judged by every model fdc has (the planning
abstraction, the embedded world and its agents, the checkers), and where they disagree:
the checks (`checks`), the report and its agreement matrix (`report`), reproducers
(`reproducers`), worker processes (`workers`). Light: the CLI imports this at start."""

#: A random answer to a memory task may be right at most this often (`--chance-bound`):
#: above even odds, the task does not tell an agent that remembers from one that guesses.
DEFAULT_CHANCE_BOUND = 0.5
