"""`fdc audit`: every task of a suite judged by every model fdc has (the planning
abstraction, the embedded world and its agents, the checkers), and where they disagree:
the checks (`checks`), the report and its agreement matrix (`report`), reproducers
(`reproducers`)."""
