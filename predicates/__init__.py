"""fdc's predicates (layer 2): the registry that binds each domain predicate to a checker,
what each predicate means beyond its truth, the checkers by theme, ground goals as data
and their algebra, and verifying goals on trajectories. See docs/predicates.md."""
