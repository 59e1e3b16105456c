; ManiTaskGen's level 3 process tasks: relocations joined by THEN, each step judged on the
; state the steps before it left (a step may name an item an earlier step moved as its
; anchor); a later step keeps the earlier anchors and placed items on their surfaces (the
; `on` atoms repeated in it). fdc adds compositions the original lacks: AND (both, in any
; order) and OR (either one). To keep the tasks coherent (and the binder's search small),
; the items of one task start in one room, or on one surface, and go to furniture there.
; Fluent atoms in :constraints read the scene's initial state.
(define (template l3-then-surface-surface)
  (:domain fdc-home)
  (:category level-3)
  (:level 3)
  (:tags manipulation process sequence)
  (:version 1)
  (:description "Two items that share a surface go, one after the other, to two other furniture surfaces in the same room; the first stays where it was put.")
  (:parameters ?o1 ?o2 - movable ?t ?s1 ?s2 - furniture-surface ?g ?f1 ?f2 - furniture ?r - room)
  (:constraints (and
    (on ?o1 ?t)
    (on ?o2 ?t)
    (surface-of ?t ?g)
    (surface-of ?s1 ?f1)
    (surface-of ?s2 ?f2)
    (furniture-in-room ?g ?r)
    (furniture-in-room ?f1 ?r)
    (furniture-in-room ?f2 ?r)))
  (:goal (then (on ?o1 ?s1) (and (on ?o2 ?s2) (on ?o1 ?s1))))
  (:instruction
    "Move {{ o1 | ref }} to {{ s1 | ref }}, then move {{ o2 | ref }} to {{ s2 | ref }}."
    "First put {{ o1 | ref }} {{ s1 | on }}. After that, put {{ o2 | ref }} {{ s2 | on }}."
    "Set {{ o1 | ref }} {{ s1 | on }} first, and only then set {{ o2 | ref }} {{ s2 | on }}.")
  (:ambiguity reject))

(define (template l3-then-surface-around)
  (:domain fdc-home)
  (:category level-3)
  (:level 3)
  (:tags manipulation process sequence)
  (:version 1)
  (:description "Move an item to a furniture surface, then a second item around it: the first step's item is the second step's anchor, where the first step put it.")
  (:parameters ?o1 ?o2 - movable ?s - furniture-surface ?f - furniture ?r - room)
  (:constraints (and
    (in-room ?o1 ?r)
    (in-room ?o2 ?r)
    (surface-of ?s ?f)
    (furniture-in-room ?f ?r)
    (not (on ?o1 ?s))))
  (:goal (then (on ?o1 ?s) (and (around ?o2 ?o1) (on ?o1 ?s))))
  (:instruction
    "Move {{ o1 | ref }} to {{ s | ref }}, then move {{ o2 | ref }} around the first item."
    "Put {{ o1 | ref }} {{ s | on }}, then put {{ o2 | ref }} next to the item you put there first."
    "First set {{ o1 | ref }} {{ s | on }}; next, place {{ o2 | ref }} beside that first item.")
  (:ambiguity reject))

(define (template l3-then-side-side)
  (:domain fdc-home)
  (:category level-3)
  (:level 3)
  (:tags manipulation process sequence)
  (:version 1)
  (:description "Rearrange one surface: an item to one side of an anchor, then another item to another side of it; the anchor and the first item stay on the surface.")
  (:parameters ?a ?o1 ?o2 - movable ?s - furniture-surface ?f - furniture ?d1 ?d2 - cell)
  (:constraints (and
    (initially-on ?a ?s)
    (initially-on ?o1 ?s)
    (initially-on ?o2 ?s)
    (surface-of ?s ?f)
    (not (= ?d1 center))
    (not (= ?d2 center))))
  (:goal (then (at-side ?o1 ?a ?d1) (and (at-side ?o2 ?a ?d2) (on ?a ?s) (on ?o1 ?s))))
  (:instruction
    "Move {{ o1 | ref }} to the {{ d1 }} side of {{ a | ref }}, then move {{ o2 | ref }} to the {{ d2 }} side of {{ a | ref }}."
    "Put {{ o1 | ref }} on the {{ d1 }} side of {{ a | ref }}, then put {{ o2 | ref }} on the {{ d2 }} side of {{ a | ref }}, without moving {{ a | ref }}."
    "First set {{ o1 | ref }} at the {{ d1 }} side of {{ a | ref }}; next, set {{ o2 | ref }} at the {{ d2 }} side of {{ a | ref }}.")
  (:ambiguity reject))

(define (template l3-then-around-between)
  (:domain fdc-home)
  (:category level-3)
  (:level 3)
  (:tags manipulation process sequence)
  (:version 1)
  (:description "Move an item around an anchor, then a second item between the anchor and the first item; the anchor and the first item stay on the anchor's surface.")
  (:parameters ?a ?o1 ?o2 - movable ?s - furniture-surface ?f - furniture ?r - room)
  (:constraints (and
    (initially-on ?a ?s)
    (surface-of ?s ?f)
    (furniture-in-room ?f ?r)
    (in-room ?o1 ?r)
    (in-room ?o2 ?r)))
  (:goal (then (around ?o1 ?a) (and (between ?o2 ?a ?o1) (on ?a ?s) (on ?o1 ?s))))
  (:instruction
    "Move {{ o1 | ref }} around {{ a | ref }}, then move {{ o2 | ref }} between them."
    "Put {{ o1 | ref }} next to {{ a | ref }}, then put {{ o2 | ref }} between the two of them."
    "First set {{ o1 | ref }} beside {{ a | ref }}; next, fit {{ o2 | ref }} in the gap between those two.")
  (:ambiguity reject))

(define (template l3-then-cells-between)
  (:domain fdc-home)
  (:category level-3)
  (:level 3)
  (:tags manipulation process sequence)
  (:version 1)
  (:description "Three items from one surface: the first to the left part of an empty furniture surface, the second to its right part, the third between them; each step keeps the items placed before it.")
  (:parameters ?o1 ?o2 ?o3 - movable ?t ?s - furniture-surface ?g ?f - furniture)
  (:constraints (and
    (on ?o1 ?t)
    (on ?o2 ?t)
    (on ?o3 ?t)
    (surface-of ?t ?g)
    (surface-of ?s ?f)
    (not (exists (?x - movable) (on ?x ?s)))))
  (:goal (then
    (in-cell ?o1 ?s left)
    (and (in-cell ?o2 ?s right) (on ?o1 ?s))
    (and (between ?o3 ?o1 ?o2) (on ?o1 ?s) (on ?o2 ?s))))
  (:instruction
    "Move {{ o1 | ref }} to the left part of {{ s | ref }}, then move {{ o2 | ref }} to the right part of {{ s | ref }}, then move {{ o3 | ref }} between them."
    "Put {{ o1 | ref }} on the left of {{ s | ref }} and then put {{ o2 | ref }} on the right of {{ s | ref }}; finally put {{ o3 | ref }} between the two."
    "Set {{ o1 | ref }} at the left of {{ s | ref }}, next set {{ o2 | ref }} at the right of {{ s | ref }}, and last set {{ o3 | ref }} in the gap between them.")
  (:ambiguity reject))

(define (template l3-then-into-close)
  (:domain fdc-home)
  (:category level-3)
  (:level 3)
  (:tags manipulation process sequence)
  (:version 1)
  (:description "Put an item inside a piece of furniture that opens, then close it with the item still inside.")
  (:parameters ?o - movable ?f - articulated ?r - room)
  (:constraints (and
    (in-room ?o ?r)
    (furniture-in-room ?f ?r)
    (exists (?x - receptacle) (surface-of ?x ?f))))
  (:goal (then
    (exists (?x - receptacle) (and (surface-of ?x ?f) (inside ?o ?x)))
    (and
      (not (is-open ?f))
      (exists (?x - receptacle) (and (surface-of ?x ?f) (inside ?o ?x))))))
  (:instruction
    "Put {{ o | ref }} in {{ f | ref }}, then close {{ f | ref }}."
    "Place {{ o | ref }} inside {{ f | ref }} and then shut {{ f | ref }}."
    "Store {{ o | ref }} inside {{ f | ref }} and shut {{ f | ref }} afterwards.")
  (:ambiguity reject))

(define (template l3-and-surface-surface)
  (:domain fdc-home)
  (:category level-3)
  (:level 3)
  (:tags manipulation process conjunction)
  (:version 1)
  (:description "Two items that share a surface go to two other furniture surfaces in the same room, in either order.")
  (:parameters ?o1 ?o2 - movable ?t ?s1 ?s2 - furniture-surface ?g ?f1 ?f2 - furniture ?r - room)
  (:constraints (and
    (on ?o1 ?t)
    (on ?o2 ?t)
    (surface-of ?t ?g)
    (surface-of ?s1 ?f1)
    (surface-of ?s2 ?f2)
    (furniture-in-room ?g ?r)
    (furniture-in-room ?f1 ?r)
    (furniture-in-room ?f2 ?r)))
  (:goal (and (on ?o1 ?s1) (on ?o2 ?s2)))
  (:instruction
    "Move {{ o1 | ref }} to {{ s1 | ref }}, and move {{ o2 | ref }} to {{ s2 | ref }}."
    "Put {{ o1 | ref }} {{ s1 | on }}, and put {{ o2 | ref }} {{ s2 | on }}, in any order."
    "Place {{ o1 | ref }} {{ s1 | on }}; also place {{ o2 | ref }} {{ s2 | on }}.")
  (:ambiguity reject))

(define (template l3-and-around-around)
  (:domain fdc-home)
  (:category level-3)
  (:level 3)
  (:tags manipulation process conjunction)
  (:version 1)
  (:description "Two items of the anchor's room both end up around the anchor, which stays on its surface.")
  (:parameters ?a ?o1 ?o2 - movable ?s - furniture-surface ?f - furniture ?r - room)
  (:constraints (and
    (initially-on ?a ?s)
    (surface-of ?s ?f)
    (furniture-in-room ?f ?r)
    (in-room ?o1 ?r)
    (in-room ?o2 ?r)))
  (:goal (and (around ?o1 ?a) (around ?o2 ?a) (on ?a ?s)))
  (:instruction
    "Move {{ o1 | ref }} around {{ a | ref }}, and move {{ o2 | ref }} around {{ a | ref }} too."
    "Put {{ o1 | ref }} next to {{ a | ref }}, and put {{ o2 | ref }} next to {{ a | ref }} as well."
    "Place {{ o1 | ref }} beside {{ a | ref }}, and place {{ o2 | ref }} beside {{ a | ref }} too.")
  (:ambiguity reject))

(define (template l3-or-surfaces)
  (:domain fdc-home)
  (:category level-3)
  (:level 3)
  (:tags manipulation process disjunction)
  (:version 1)
  (:description "Move an item to either of two surfaces of one piece of furniture (two shelves of a bookshelf, say).")
  (:parameters ?o - movable ?s1 ?s2 - furniture-surface ?f - furniture)
  (:constraints (and
    (surface-of ?s1 ?f)
    (surface-of ?s2 ?f)
    (not (on ?o ?s1))
    (not (on ?o ?s2))))
  (:goal (or (on ?o ?s1) (on ?o ?s2)))
  (:instruction
    "Move {{ o | ref }} to {{ s1 | ref }} or {{ s2 | ref }}."
    "Put {{ o | ref }} either {{ s1 | on }} or {{ s2 | on }}."
    "Place {{ o | ref }} {{ s1 | on }}, or else {{ s2 | on }}.")
  (:ambiguity reject))

(define (template l3-or-into)
  (:domain fdc-home)
  (:category level-3)
  (:level 3)
  (:tags manipulation process disjunction)
  (:version 1)
  (:description "Put an item inside either of two pieces of furniture that open, in the item's room.")
  (:parameters ?o - movable ?f1 ?f2 - articulated ?r - room)
  (:constraints (and
    (in-room ?o ?r)
    (furniture-in-room ?f1 ?r)
    (furniture-in-room ?f2 ?r)
    (exists (?x - receptacle) (surface-of ?x ?f1))
    (exists (?x - receptacle) (surface-of ?x ?f2))))
  (:goal (or
    (exists (?x - receptacle) (and (surface-of ?x ?f1) (inside ?o ?x)))
    (exists (?x - receptacle) (and (surface-of ?x ?f2) (inside ?o ?x)))))
  (:instruction
    "Put {{ o | ref }} in {{ f1 | ref }} or in {{ f2 | ref }}."
    "Store {{ o | ref }} inside either {{ f1 | ref }} or {{ f2 | ref }}."
    "Place {{ o | ref }} inside {{ f1 | ref }}, or else inside {{ f2 | ref }}.")
  (:ambiguity reject))
