; ManiTaskGen's level 4 outcome tasks, made checkable: each goal is a formula over fluent
; predicates that the run-time checkers decide on the final state (ManiTaskGen's 200
; outcome templates had no automatic success check). Every template's constraints make
; sure its goal does not hold in the scene's initial state (fluent atoms in :constraints
; read it), and that the scene has the items the goal needs. Categories (?c) are the
; scene's own words (`category-of`: a mug, not tableware); cells are thirds of a surface
; in its own frame; destinations are surfaces of furniture. A goal cannot read the
; initial state, so "the items on the table now" is the scene fact `initially-on`, folded
; when the task is compiled: a goal that clears a surface also asks that what stood on it
; is put down on furniture, which names those items as the task's targets.
(define (template out-clear-right-half)
  (:domain fdc-home)
  (:category outcome)
  (:level 4)
  (:tags manipulation outcome)
  (:version 1)
  (:description "No item in the right column of cells of a surface that has one there now; what stood on the surface stays on furniture (not held, not on the floor).")
  (:parameters ?s - furniture-surface ?f - furniture)
  (:constraints (and
    (surface-of ?s ?f)
    (exists (?x - movable)
      (or (in-cell ?x ?s right) (in-cell ?x ?s front-right) (in-cell ?x ?s rear-right)))))
  (:goal (and
    (forall (?x - movable)
      (and
        (not (in-cell ?x ?s right))
        (not (in-cell ?x ?s front-right))
        (not (in-cell ?x ?s rear-right))))
    (forall (?x - movable)
      (imply
        (initially-on ?x ?s)
        (exists (?t - surface)
          (and (exists (?g - furniture) (surface-of ?t ?g)) (on ?x ?t)))))))
  (:instruction
    "Clear the right half of {{ s | ref }}."
    "Take everything off the right half of {{ s | ref }}."
    "Remove every item from the right half of {{ s | ref }}.")
  (:ambiguity reject))

(define (template out-clear-left-half)
  (:domain fdc-home)
  (:category outcome)
  (:level 4)
  (:tags manipulation outcome)
  (:version 1)
  (:description "No item in the left column of cells of a surface that has one there now; what stood on the surface stays on furniture (not held, not on the floor).")
  (:parameters ?s - furniture-surface ?f - furniture)
  (:constraints (and
    (surface-of ?s ?f)
    (exists (?x - movable)
      (or (in-cell ?x ?s left) (in-cell ?x ?s front-left) (in-cell ?x ?s rear-left)))))
  (:goal (and
    (forall (?x - movable)
      (and
        (not (in-cell ?x ?s left))
        (not (in-cell ?x ?s front-left))
        (not (in-cell ?x ?s rear-left))))
    (forall (?x - movable)
      (imply
        (initially-on ?x ?s)
        (exists (?t - surface)
          (and (exists (?g - furniture) (surface-of ?t ?g)) (on ?x ?t)))))))
  (:instruction
    "Clear the left half of {{ s | ref }}."
    "Take everything off the left half of {{ s | ref }}."
    "Remove every item from the left half of {{ s | ref }}.")
  (:ambiguity reject))

(define (template out-clear-front-half)
  (:domain fdc-home)
  (:category outcome)
  (:level 4)
  (:tags manipulation outcome)
  (:version 1)
  (:description "No item in the front row of cells of a surface that has one there now; what stood on the surface stays on furniture (not held, not on the floor).")
  (:parameters ?s - furniture-surface ?f - furniture)
  (:constraints (and
    (surface-of ?s ?f)
    (exists (?x - movable)
      (or (in-cell ?x ?s front) (in-cell ?x ?s front-left) (in-cell ?x ?s front-right)))))
  (:goal (and
    (forall (?x - movable)
      (and
        (not (in-cell ?x ?s front))
        (not (in-cell ?x ?s front-left))
        (not (in-cell ?x ?s front-right))))
    (forall (?x - movable)
      (imply
        (initially-on ?x ?s)
        (exists (?t - surface)
          (and (exists (?g - furniture) (surface-of ?t ?g)) (on ?x ?t)))))))
  (:instruction
    "Clear the front half of {{ s | ref }}."
    "Take everything off the front half of {{ s | ref }}."
    "Remove every item from the front half of {{ s | ref }}.")
  (:ambiguity reject))

(define (template out-clear-cell)
  (:domain fdc-home)
  (:category outcome)
  (:level 4)
  (:tags manipulation outcome)
  (:version 1)
  (:description "No item in one cell of a surface that has one there now; what stood on the surface stays on furniture.")
  (:parameters ?s - furniture-surface ?f - furniture ?c - cell)
  (:constraints (and (surface-of ?s ?f) (exists (?x - movable) (in-cell ?x ?s ?c))))
  (:goal (and
    (forall (?x - movable) (not (in-cell ?x ?s ?c)))
    (forall (?x - movable)
      (imply
        (initially-on ?x ?s)
        (exists (?t - surface)
          (and (exists (?g - furniture) (surface-of ?t ?g)) (on ?x ?t)))))))
  (:instruction
    "Clear the {{ c }} part of {{ s | ref }}."
    "Move everything out of the {{ c }} part of {{ s | ref }}."
    "Remove every item from the {{ c }} part of {{ s | ref }}.")
  (:ambiguity reject))

(define (template out-clear-surface)
  (:domain fdc-home)
  (:category outcome)
  (:level 4)
  (:tags manipulation outcome)
  (:version 1)
  (:description "Nothing left on a surface that holds items now; each of them put on another furniture surface.")
  (:parameters ?s - furniture-surface ?f - furniture)
  (:constraints (and (surface-of ?s ?f) (exists (?x - movable) (initially-on ?x ?s))))
  (:goal (and
    (forall (?x - movable) (not (on ?x ?s)))
    (forall (?x - movable)
      (imply
        (initially-on ?x ?s)
        (exists (?t - surface)
          (and (not (= ?t ?s)) (exists (?g - furniture) (surface-of ?t ?g)) (on ?x ?t)))))))
  (:instruction
    "Clear {{ s | ref }}."
    "Take everything {{ s | off }}."
    "Remove every item from {{ s | ref }}.")
  (:ambiguity reject))

(define (template out-all-on-surface)
  (:domain fdc-home)
  (:category outcome)
  (:level 4)
  (:tags manipulation outcome)
  (:version 1)
  (:description "Every item of a category (two or more in the scene) on one furniture surface.")
  (:parameters ?c - category ?s - furniture-surface ?f - furniture)
  (:constraints (and
    (surface-of ?s ?f)
    (at-least 2 (?x - movable) (category-of ?x ?c))
    (exists (?x - movable) (and (category-of ?x ?c) (not (on ?x ?s))))))
  (:goal (forall (?x - movable) (imply (category-of ?x ?c) (on ?x ?s))))
  (:instruction
    "Put all the {{ c | plural }} {{ s | on }}."
    "Gather every {{ c }} {{ s | on }}."
    "Collect {{ c | all_the(n_targets) }} {{ s | on }}.")
  (:ambiguity reject))

(define (template out-all-in-room)
  (:domain fdc-home)
  (:category outcome)
  (:level 4)
  (:tags manipulation outcome)
  (:version 1)
  (:description "Every item of a category in one room.")
  (:parameters ?c - category ?r - room)
  (:constraints (and
    (at-least 2 (?x - movable) (category-of ?x ?c))
    (exists (?x - movable) (and (category-of ?x ?c) (not (in-room ?x ?r))))))
  (:goal (forall (?x - movable) (imply (category-of ?x ?c) (in-room ?x ?r))))
  (:instruction
    "Bring all the {{ c | plural }} to {{ r | ref }}."
    "Make sure every {{ c }} is in {{ r | ref }}."
    "Carry {{ c | all_the(n_targets) }} into {{ r | ref }}.")
  (:ambiguity reject))

(define (template out-all-inside)
  (:domain fdc-home)
  (:category outcome)
  (:level 4)
  (:tags manipulation outcome)
  (:version 1)
  (:description "Every item of a category inside one piece of furniture that opens.")
  (:parameters ?c - category ?f - articulated)
  (:constraints (and
    (exists (?r - receptacle) (surface-of ?r ?f))
    (at-least 2 (?x - movable) (category-of ?x ?c))
    (at-most 4 (?x - movable) (category-of ?x ?c))))
  (:goal (forall (?x - movable)
    (imply
      (category-of ?x ?c)
      (exists (?r - receptacle) (and (surface-of ?r ?f) (inside ?x ?r))))))
  (:instruction
    "Put all the {{ c | plural }} in {{ f | ref }}."
    "Store every {{ c }} inside {{ f | ref }}."
    "Place {{ c | all_the(n_targets) }} inside {{ f | ref }}.")
  (:ambiguity reject))

(define (template out-group-category)
  (:domain fdc-home)
  (:category outcome)
  (:level 4)
  (:tags manipulation outcome)
  (:version 2)
  (:description "All the items of a category together on one furniture surface, any one; now they are spread over several.")
  (:parameters ?c - category)
  (:constraints (and
    (at-least 2 (?x - movable) (category-of ?x ?c))
    (not
      (exists (?s - surface) (forall (?x - movable) (imply (category-of ?x ?c) (on ?x ?s)))))))
  ; Every two of them share a surface and each is on furniture: one atom a pair and one
  ; an item, where "some furniture surface holds them all" grounds to surfaces x items.
  (:goal (and
    (forall (?x ?y - movable)
      (imply (and (category-of ?x ?c) (category-of ?y ?c)) (same-surface ?x ?y)))
    (forall (?x - movable) (imply (category-of ?x ?c) (on-furniture ?x)))))
  (:instruction
    "Group the {{ c | plural }} together on one surface."
    "Gather all the {{ c | plural }} in one place, on the same surface."
    "Collect {{ c | all_the(n_targets) }} onto one single surface.")
  (:ambiguity reject))

(define (template out-group-kind)
  (:domain fdc-home)
  (:category outcome)
  (:level 4)
  (:tags manipulation outcome)
  (:version 2)
  (:description "All the items of a broader kind (fruit, tableware: a category above the scene's own words; two to a hundred of them) together on one furniture surface.")
  (:parameters ?c - category)
  ; At most a hundred: the goal holds an atom for every pair, and a kind of a large
  ; generated house (every piece of tableware of 3,000 objects) would pass the atom limit.
  (:constraints (and
    (not (exists (?x - movable) (category-of ?x ?c)))
    (at-least 2 (?x - movable) (is-category ?x ?c))
    (at-most 100 (?x - movable) (is-category ?x ?c))
    (not
      (exists (?s - surface) (forall (?x - movable) (imply (is-category ?x ?c) (on ?x ?s)))))))
  ; As out-group-category: one atom a pair and one an item, not surfaces x items.
  (:goal (and
    (forall (?x ?y - movable)
      (imply (and (is-category ?x ?c) (is-category ?y ?c)) (same-surface ?x ?y)))
    (forall (?x - movable) (imply (is-category ?x ?c) (on-furniture ?x)))))
  (:instruction
    "Group the {{ c }} items together on one surface."
    "Gather all the {{ c }} items in one place, on the same surface."
    "Collect every {{ c }} item onto one single surface.")
  (:ambiguity reject))

(define (template out-all-around)
  (:domain fdc-home)
  (:category outcome)
  (:level 4)
  (:tags manipulation outcome)
  (:version 1)
  (:description "Every item of a small category (two to four) around one anchor, which stays on its surface.")
  (:parameters ?c - category ?a - movable ?s - furniture-surface ?f - furniture)
  (:constraints (and
    (initially-on ?a ?s)
    (surface-of ?s ?f)
    (not (category-of ?a ?c))
    (at-least 2 (?x - movable) (category-of ?x ?c))
    (at-most 4 (?x - movable) (category-of ?x ?c))))
  (:goal (and (on ?a ?s) (forall (?x - movable) (imply (category-of ?x ?c) (around ?x ?a)))))
  (:instruction
    "Put all the {{ c | plural }} around {{ a | ref }}."
    "Arrange every {{ c }} next to {{ a | ref }}, leaving {{ a | it }} where it is."
    "Arrange {{ c | all_the(n_targets) }} beside {{ a | ref }} without moving {{ a | it }}.")
  (:ambiguity reject))

(define (template out-all-in-cell)
  (:domain fdc-home)
  (:category outcome)
  (:level 4)
  (:tags manipulation outcome)
  (:version 1)
  (:description "Every item of a small category (two to four) in one cell of a furniture surface.")
  (:parameters ?c - category ?s - furniture-surface ?f - furniture ?z - cell)
  (:constraints (and
    (surface-of ?s ?f)
    (at-least 2 (?x - movable) (category-of ?x ?c))
    (at-most 4 (?x - movable) (category-of ?x ?c))))
  (:goal (forall (?x - movable) (imply (category-of ?x ?c) (in-cell ?x ?s ?z))))
  (:instruction
    "Put all the {{ c | plural }} in the {{ z }} part of {{ s | ref }}."
    "Gather every {{ c }} in the {{ z }} part of {{ s | ref }}."
    "Bring {{ c | all_the(n_targets) }} into the {{ z }} part of {{ s | ref }}.")
  (:ambiguity reject))

(define (template out-at-least-two-on)
  (:domain fdc-home)
  (:category outcome)
  (:level 4)
  (:tags manipulation outcome)
  (:version 1)
  (:description "At least two items of a category on a furniture surface that holds at most one now.")
  (:parameters ?c - category ?s - furniture-surface ?f - furniture)
  (:constraints (and
    (surface-of ?s ?f)
    (at-least 2 (?x - movable) (category-of ?x ?c))
    (at-most 1 (?x - movable) (and (category-of ?x ?c) (on ?x ?s)))))
  (:goal (at-least 2 (?x - movable) (and (category-of ?x ?c) (on ?x ?s))))
  (:instruction
    "Put at least two {{ c | plural }} {{ s | on }}."
    "Make sure {{ s | ref }} holds two or more {{ c | plural }}."
    "Get two or more {{ c | plural }} {{ s | on }}.")
  (:ambiguity reject))

(define (template out-exactly-one-on)
  (:domain fdc-home)
  (:category outcome)
  (:level 4)
  (:tags manipulation outcome)
  (:version 1)
  (:description "Exactly one item of a category (two or more in the scene) on a furniture surface that holds none or several now.")
  (:parameters ?c - category ?s - furniture-surface ?f - furniture)
  (:constraints (and
    (surface-of ?s ?f)
    (at-least 2 (?x - movable) (category-of ?x ?c))
    (not (exactly 1 (?x - movable) (and (category-of ?x ?c) (on ?x ?s))))))
  (:goal (exactly 1 (?x - movable) (and (category-of ?x ?c) (on ?x ?s))))
  (:instruction
    "Make sure exactly one {{ c }} is {{ s | on }}."
    "Have exactly one {{ c }} {{ s | on }}, no more and no fewer."
    "Leave a single {{ c }} {{ s | on }}, and no other.")
  (:ambiguity reject))

(define (template out-none-on)
  (:domain fdc-home)
  (:category outcome)
  (:level 4)
  (:tags manipulation outcome)
  (:version 1)
  (:description "No item of a category left on a furniture surface that holds one now; those put on other furniture surfaces.")
  (:parameters ?c - category ?s - furniture-surface ?f - furniture)
  (:constraints (and
    (surface-of ?s ?f)
    (exists (?x - movable) (and (category-of ?x ?c) (initially-on ?x ?s)))))
  (:goal (and
    (forall (?x - movable) (imply (category-of ?x ?c) (not (on ?x ?s))))
    (forall (?x - movable)
      (imply
        (and (category-of ?x ?c) (initially-on ?x ?s))
        (exists (?t - surface)
          (and (not (= ?t ?s)) (exists (?g - furniture) (surface-of ?t ?g)) (on ?x ?t)))))))
  (:instruction
    "Take {{ c | all_the(n_targets) }} {{ s | off }}."
    "Make sure no {{ c }} is left {{ s | on }}."
    "Leave no {{ c }} {{ s | on }}.")
  (:ambiguity reject))

(define (template out-only-on)
  (:domain fdc-home)
  (:category outcome)
  (:level 4)
  (:tags manipulation outcome)
  (:version 1)
  (:description "Only the items of a category left on a furniture surface that now holds them among others.")
  (:parameters ?c - category ?s - furniture-surface ?f - furniture)
  (:constraints (and
    (surface-of ?s ?f)
    (exists (?x - movable) (and (category-of ?x ?c) (on ?x ?s)))
    (exists (?x - movable) (and (not (category-of ?x ?c)) (on ?x ?s)))))
  (:goal (and
    (forall (?x - movable) (imply (on ?x ?s) (category-of ?x ?c)))
    (exists (?x - movable) (and (category-of ?x ?c) (on ?x ?s)))))
  (:instruction
    "Leave only the {{ c | plural }} {{ s | on }}."
    "Take everything but the {{ c | plural }} {{ s | off }}."
    "Remove every item but the {{ c | plural }} from {{ s | ref }}.")
  (:ambiguity reject))

(define (template out-separate)
  (:domain fdc-home)
  (:category outcome)
  (:level 4)
  (:tags manipulation outcome)
  (:version 3)
  (:description "No surface holds an item of each of two categories (a furniture surface does now); all of them on furniture.")
  (:parameters ?c1 ?c2 - category)
  ; Surface first: surfaces x (items of c1 + items of c2) lookups, not items x items x
  ; surfaces.
  (:constraints (exists (?s - surface)
    (and
      (exists (?g - furniture) (surface-of ?s ?g))
      (exists (?x - movable) (and (category-of ?x ?c1) (on ?x ?s)))
      (exists (?y - movable) (and (category-of ?y ?c2) (on ?y ?s))))))
  ; No item of one category shares a surface with one of the other, and each is on
  ; furniture: one atom a pair and one an item, independent of the number of surfaces.
  (:goal (and
    (forall (?x ?y - movable)
      (imply (and (category-of ?x ?c1) (category-of ?y ?c2)) (not (same-surface ?x ?y))))
    (forall (?x - movable)
      (imply (or (category-of ?x ?c1) (category-of ?x ?c2)) (on-furniture ?x)))))
  (:instruction
    "Keep the {{ c1 | plural }} and the {{ c2 | plural }} apart: no surface may hold both."
    "Separate the {{ c1 | plural }} from the {{ c2 | plural }} so that they never share a surface."
    "Never let a surface hold both {{ c1 | plural }} and {{ c2 | plural }}.")
  (:ambiguity reject))

(define (template out-color-on)
  (:domain fdc-home)
  (:category outcome)
  (:level 4)
  (:tags manipulation outcome)
  (:version 1)
  (:description "Every item of a category and a colour (two or more) on one furniture surface.")
  (:parameters ?k - color ?c - category ?s - furniture-surface ?f - furniture)
  (:constraints (and
    (surface-of ?s ?f)
    (at-least 2 (?x - movable) (and (category-of ?x ?c) (has-color ?x ?k)))
    (exists (?x - movable) (and (category-of ?x ?c) (has-color ?x ?k) (not (on ?x ?s))))))
  (:goal (forall (?x - movable)
    (imply (and (category-of ?x ?c) (has-color ?x ?k)) (on ?x ?s))))
  (:instruction
    "Put all the {{ k }} {{ c | plural }} {{ s | on }}."
    "Gather every {{ k }} {{ c }} {{ s | on }}."
    "Collect {{ (k ~ ' ' ~ c) | all_the(n_targets) }} {{ s | on }}.")
  (:ambiguity reject))

(define (template out-glass-by-every-plate)
  (:domain fdc-home)
  (:category outcome)
  (:level 4)
  (:tags manipulation outcome)
  (:version 2)
  (:description "Every plate on a furniture surface (two there now) with a glass of its own around it (a matching, as BDDL's forpairs), glasses from that room. Bounded by the surface and the room: over every plate and glass of a large house the matchings are past counting.")
  (:parameters ?s - furniture-surface ?f - furniture ?r - room)
  (:constraints (and
    (surface-of ?s ?f)
    (furniture-in-room ?f ?r)
    (exactly 2 (?p - plate) (initially-on ?p ?s))
    (fornpairs 2 (?p - plate) (?g - glass)
      (and
        (initially-on ?p ?s)
        (not (= ?p ?g))
        (exists (?t - surface)
          (and
            (initially-on ?g ?t)
            (exists (?h - furniture) (and (surface-of ?t ?h) (furniture-in-room ?h ?r)))))))))
  (:goal (fornpairs 2 (?p - plate) (?g - glass)
    (and
      (initially-on ?p ?s)
      (exists (?t - surface)
        (and
          (initially-on ?g ?t)
          (exists (?h - furniture) (and (surface-of ?t ?h) (furniture-in-room ?h ?r)))))
      (around ?g ?p))))
  (:instruction
    "Put a glass next to every plate {{ s | on }}, a different glass by each."
    "Give each plate {{ s | on }} its own glass, placed beside it."
    "Beside each plate {{ s | on }}, set a glass of its own.")
  (:ambiguity reject))

(define (template out-set-for-two)
  (:domain fdc-home)
  (:category outcome)
  (:level 4)
  (:tags manipulation outcome)
  (:version 2)
  (:description "Two plates on a furniture surface that holds tableware now, each with a mug of its own around it; plates and mugs from the surface's room (over a whole large house the matchings are past counting).")
  (:parameters ?s - furniture-surface ?f - furniture ?r - room)
  (:constraints (and
    (surface-of ?s ?f)
    (furniture-in-room ?f ?r)
    (exists (?x - tableware) (on ?x ?s))
    (fornpairs 2 (?p - plate) (?m - mug)
      (and
        (not (= ?p ?m))
        (exists (?t - surface)
          (and
            (initially-on ?p ?t)
            (exists (?h - furniture) (and (surface-of ?t ?h) (furniture-in-room ?h ?r)))))
        (exists (?t - surface)
          (and
            (initially-on ?m ?t)
            (exists (?h - furniture) (and (surface-of ?t ?h) (furniture-in-room ?h ?r)))))))))
  (:goal (fornpairs 2 (?p - plate) (?m - mug)
    (and
      (exists (?t - surface)
        (and
          (initially-on ?p ?t)
          (exists (?h - furniture) (and (surface-of ?t ?h) (furniture-in-room ?h ?r)))))
      (exists (?t - surface)
        (and
          (initially-on ?m ?t)
          (exists (?h - furniture) (and (surface-of ?t ?h) (furniture-in-room ?h ?r)))))
      (on ?p ?s)
      (around ?m ?p))))
  (:instruction
    "Set {{ s | ref }} for two: two plates, each with a mug next to it."
    "Lay out two plates {{ s | on }} and put a mug beside each."
    "Prepare {{ s | ref }} for two people: a plate for each, each plate with a mug beside it.")
  (:ambiguity reject))

(define (template out-spread-over-two)
  (:domain fdc-home)
  (:category outcome)
  (:level 4)
  (:tags manipulation outcome)
  (:version 1)
  (:description "The items of a category split over two surfaces of one piece of furniture (two shelves), at least one on each and none elsewhere.")
  (:parameters ?c - category ?s1 ?s2 - furniture-surface ?f - furniture)
  (:constraints (and
    (surface-of ?s1 ?f)
    (surface-of ?s2 ?f)
    (at-least 2 (?x - movable) (category-of ?x ?c))
    (at-most 6 (?x - movable) (category-of ?x ?c))))
  (:goal (and
    (forall (?x - movable) (imply (category-of ?x ?c) (or (on ?x ?s1) (on ?x ?s2))))
    (exists (?x - movable) (and (category-of ?x ?c) (on ?x ?s1)))
    (exists (?x - movable) (and (category-of ?x ?c) (on ?x ?s2)))))
  (:instruction
    "Split the {{ c | plural }} between {{ s1 | ref }} and {{ s2 | ref }}, with at least one on each."
    "Spread the {{ c | plural }} over {{ s1 | ref }} and {{ s2 | ref }}: some on each, none anywhere else."
    "Distribute the {{ c | plural }} across {{ s1 | ref }} and {{ s2 | ref }}, leaving at least one on each.")
  (:ambiguity reject))

(define (template out-empty-furniture)
  (:domain fdc-home)
  (:category outcome)
  (:level 4)
  (:tags manipulation outcome)
  (:version 1)
  (:description "Nothing left inside a piece of furniture that opens and holds items now; those put on furniture surfaces outside it.")
  (:parameters ?f - articulated)
  (:constraints (exists (?r - receptacle)
    (and (surface-of ?r ?f) (exists (?x - movable) (initially-on ?x ?r)))))
  (:goal (and
    (forall (?r - receptacle)
      (imply (surface-of ?r ?f) (forall (?x - movable) (not (inside ?x ?r)))))
    (forall (?x - movable)
      (imply
        (exists (?r - receptacle) (and (surface-of ?r ?f) (initially-on ?x ?r)))
        (exists (?t - surface)
          (and (exists (?g - furniture) (surface-of ?t ?g)) (on ?x ?t)))))))
  (:instruction
    "Empty {{ f | ref }}."
    "Take everything out of {{ f | ref }}."
    "Remove every item from inside {{ f | ref }}.")
  (:ambiguity reject))

(define (template out-centerpiece)
  (:domain fdc-home)
  (:category outcome)
  (:level 4)
  (:tags manipulation outcome)
  (:version 1)
  (:description "An item alone in the centre cell of a furniture surface in its room.")
  (:parameters ?a - movable ?s - furniture-surface ?f - furniture ?r - room)
  (:constraints (and (in-room ?a ?r) (surface-of ?s ?f) (furniture-in-room ?f ?r)))
  (:goal (and
    (in-cell ?a ?s center)
    (forall (?x - movable) (or (= ?x ?a) (not (in-cell ?x ?s center))))))
  (:instruction
    "Make {{ a | ref }} the centrepiece of {{ s | ref }}: put it in the middle, with nothing else there."
    "Put {{ a | ref }} in the center of {{ s | ref }} and leave nothing else there."
    "Move {{ a | ref }} to the middle of {{ s | ref }}, and keep everything else out of the middle.")
  (:ambiguity reject))

(define (template out-swap)
  (:domain fdc-home)
  (:category outcome)
  (:level 4)
  (:tags manipulation outcome)
  (:version 1)
  (:description "Two items of one room on two furniture surfaces trade places.")
  (:parameters ?a ?b - movable ?sa ?sb - furniture-surface ?fa ?fb - furniture ?r - room)
  (:constraints (and
    (initially-on ?a ?sa)
    (initially-on ?b ?sb)
    (surface-of ?sa ?fa)
    (surface-of ?sb ?fb)
    (furniture-in-room ?fa ?r)
    (furniture-in-room ?fb ?r)))
  (:goal (and (on ?a ?sb) (on ?b ?sa)))
  (:instruction
    "Swap {{ a | ref }} and {{ b | ref }}: each goes where the other one is."
    "Put {{ a | ref }} {{ sb | on }} and put {{ b | ref }} {{ sa | on }}."
    "Exchange the places of {{ a | ref }} and {{ b | ref }}.")
  (:ambiguity reject))

(define (template out-move-all)
  (:domain fdc-home)
  (:category outcome)
  (:level 4)
  (:tags manipulation outcome)
  (:version 1)
  (:description "Everything that stands on one furniture surface now on another one in the same room.")
  (:parameters ?s1 ?s2 - furniture-surface ?f1 ?f2 - furniture ?r - room)
  (:constraints (and
    (surface-of ?s1 ?f1)
    (surface-of ?s2 ?f2)
    (furniture-in-room ?f1 ?r)
    (furniture-in-room ?f2 ?r)
    (exists (?x - movable) (initially-on ?x ?s1))))
  (:goal (forall (?x - movable) (imply (initially-on ?x ?s1) (on ?x ?s2))))
  (:instruction
    "Move everything {{ s1 | on }} to {{ s2 | ref }}."
    "Take {{ 'item' | all_the(n_targets) }} {{ s1 | off }} and put {{ s1 | it(n_targets) }} {{ s2 | on }}."
    "Transfer every item {{ s1 | on }} to {{ s2 | ref }}.")
  (:ambiguity reject))
