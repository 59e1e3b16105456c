"""The checkers, one module per theme (the robot, attributes, memory, spatial relations,
object states); `fdc.predicates.builtin` names the modules and registers them. See
docs/predicates.md."""
