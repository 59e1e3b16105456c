"""fdc's compiler (layer 4): the template language's front end (lexer, parser, AST,
printer, type checker), binding and grounding, the compile pipeline and its one driver
(shards), the suite it emits, and validation with planning certificates. See
docs/architecture.md ("The compile pipeline") and docs/language.md."""
