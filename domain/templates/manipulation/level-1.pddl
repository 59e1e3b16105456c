; ManiTaskGen's level 1 process tasks: one relocation of an item that has no look-alike
; (no other item of its category ?k) on the surface it starts on. Destinations are the
; surfaces of furniture (ManiTaskGen's depth-1 platforms): an empty one takes the whole
; surface or one of its 3x3 cells, an occupied one a region around the items on it.
; An anchor stands directly on its surface (`initially-on`: the surface `around`,
; `at-side` and `between` judge it on). Fluent atoms in :constraints read the scene's
; initial state; the top-level atoms over parameters are the binder's joins.
(define (template l1-to-surface)
  (:domain fdc-home)
  (:category level-1)
  (:level 1)
  (:tags manipulation process)
  (:version 1)
  (:description "Move an unambiguous item to an empty surface of a piece of furniture.")
  (:parameters ?o - movable ?k - category ?s - furniture-surface ?f - furniture)
  (:constraints (and
    (category-of ?o ?k)
    (surface-of ?s ?f)
    (not (exists (?x - movable) (on ?x ?s)))
    (not
      (exists (?x - movable)
        (and
          (category-of ?x ?k)
          (not (= ?x ?o))
          (exists (?t - surface) (and (on ?o ?t) (on ?x ?t))))))))
  (:goal (on ?o ?s))
  (:instruction
    "Move {{ o | ref }} to {{ s | ref }}."
    "Put {{ o | ref }} {{ s | on }}."
    "Place {{ o | ref }} {{ s | on }}.")
  (:ambiguity reject))

(define (template l1-to-cell)
  (:domain fdc-home)
  (:category level-1)
  (:level 1)
  (:tags manipulation process)
  (:version 1)
  (:description "Move an unambiguous item to one cell of the 3x3 grid of an empty furniture surface (cells in the surface's own frame, judged by the item's centre).")
  (:parameters ?o - movable ?k - category ?s - furniture-surface ?f - furniture ?c - cell)
  (:constraints (and
    (category-of ?o ?k)
    (surface-of ?s ?f)
    (not (exists (?x - movable) (on ?x ?s)))
    (not
      (exists (?x - movable)
        (and
          (category-of ?x ?k)
          (not (= ?x ?o))
          (exists (?t - surface) (and (on ?o ?t) (on ?x ?t))))))))
  (:goal (in-cell ?o ?s ?c))
  (:instruction
    "Move {{ o | ref }} to the {{ c }} part of {{ s | ref }}."
    "Put {{ o | ref }} in the {{ c }} part of {{ s | ref }}."
    "Place {{ o | ref }} so it sits in the {{ c }} part of {{ s | ref }}.")
  (:ambiguity reject))

(define (template l1-around)
  (:domain fdc-home)
  (:category level-1)
  (:level 1)
  (:tags manipulation process)
  (:version 1)
  (:description "Move an unambiguous item into one of the 8 regions around an anchor that stands on a furniture surface.")
  (:parameters ?o - movable ?k - category ?a - movable ?s - furniture-surface ?f - furniture)
  (:constraints (and
    (category-of ?o ?k)
    (initially-on ?a ?s)
    (surface-of ?s ?f)
    (not
      (exists (?x - movable)
        (and
          (category-of ?x ?k)
          (not (= ?x ?o))
          (exists (?t - surface) (and (on ?o ?t) (on ?x ?t))))))))
  (:goal (around ?o ?a))
  (:instruction
    "Move {{ o | ref }} around {{ a | ref }}."
    "Put {{ o | ref }} next to {{ a | ref }}."
    "Place {{ o | ref }} somewhere beside {{ a | ref }}.")
  (:ambiguity reject))

(define (template l1-to-side)
  (:domain fdc-home)
  (:category level-1)
  (:level 1)
  (:tags manipulation process)
  (:version 1)
  (:description "Move an unambiguous item to an anchor's region in one direction (in the words of the viewer at the anchor's surface).")
  (:parameters ?o - movable ?k - category ?a - movable ?s - furniture-surface ?f - furniture ?d - cell)
  (:constraints (and
    (category-of ?o ?k)
    (initially-on ?a ?s)
    (surface-of ?s ?f)
    (not (= ?d center))
    (not
      (exists (?x - movable)
        (and
          (category-of ?x ?k)
          (not (= ?x ?o))
          (exists (?t - surface) (and (on ?o ?t) (on ?x ?t))))))))
  (:goal (at-side ?o ?a ?d))
  (:instruction
    "Move {{ o | ref }} to the {{ d }} side of {{ a | ref }}."
    "Put {{ o | ref }} on the {{ d }} side of {{ a | ref }}."
    "Place {{ o | ref }} at the {{ d }} side of {{ a | ref }}.")
  (:ambiguity reject))

(define (template l1-between)
  (:domain fdc-home)
  (:category level-1)
  (:level 1)
  (:tags manipulation process)
  (:version 1)
  (:description "Move an unambiguous item between two anchors that stand on one furniture surface.")
  (:parameters ?o - movable ?k - category ?a ?b - movable ?s - furniture-surface ?f - furniture)
  (:constraints (and
    (category-of ?o ?k)
    (initially-on ?a ?s)
    (initially-on ?b ?s)
    (surface-of ?s ?f)
    (not
      (exists (?x - movable)
        (and
          (category-of ?x ?k)
          (not (= ?x ?o))
          (exists (?t - surface) (and (on ?o ?t) (on ?x ?t))))))))
  (:goal (between ?o ?a ?b))
  (:instruction
    "Move {{ o | ref }} between {{ a | ref }} and {{ b | ref }}."
    "Put {{ o | ref }} between {{ a | ref }} and {{ b | ref }}."
    "Place {{ o | ref }} in the gap between {{ a | ref }} and {{ b | ref }}.")
  (:ambiguity reject))

(define (template l1-into-furniture)
  (:domain fdc-home)
  (:category level-1)
  (:level 1)
  (:tags manipulation process)
  (:version 1)
  (:description "Put an unambiguous item inside a piece of furniture that opens (on any of its inner surfaces).")
  (:parameters ?o - movable ?k - category ?f - articulated)
  (:constraints (and
    (category-of ?o ?k)
    (exists (?r - receptacle) (surface-of ?r ?f))
    (not
      (exists (?x - movable)
        (and
          (category-of ?x ?k)
          (not (= ?x ?o))
          (exists (?t - surface) (and (on ?o ?t) (on ?x ?t))))))))
  (:goal (exists (?r - receptacle) (and (surface-of ?r ?f) (inside ?o ?r))))
  (:instruction
    "Put {{ o | ref }} in {{ f | ref }}."
    "Move {{ o | ref }} into {{ f | ref }}."
    "Store {{ o | ref }} inside {{ f | ref }}.")
  (:ambiguity reject))

(define (template l1-into-container)
  (:domain fdc-home)
  (:category level-1)
  (:level 1)
  (:tags manipulation process)
  (:version 1)
  (:description "Put an unambiguous item inside a container item (a basket, a box).")
  (:parameters ?o - movable ?k - category ?c - container)
  (:constraints (and
    (category-of ?o ?k)
    (not
      (exists (?x - movable)
        (and
          (category-of ?x ?k)
          (not (= ?x ?o))
          (exists (?t - surface) (and (on ?o ?t) (on ?x ?t))))))))
  (:goal (inside ?o ?c))
  (:instruction
    "Put {{ o | ref }} in {{ c | ref }}."
    "Move {{ o | ref }} into {{ c | ref }}."
    "Place {{ o | ref }} inside {{ c | ref }}.")
  (:ambiguity reject))

; Furniture and rooms named by their category: a parameter or a quantified variable of a
; furniture type (`counter`, `table`: coffee, side, console and dining tables too) or a
; room type (`kitchen`) ranges over the scene's pieces and rooms of that category.
(define (template l1-to-kitchen-counter)
  (:domain fdc-home)
  (:category level-1)
  (:level 1)
  (:tags manipulation process)
  (:version 1)
  (:description "Bring an item from another room to a kitchen counter, any of them (furniture and rooms by category: `?f - counter`, `?r - kitchen`).")
  (:parameters ?o - movable)
  (:constraints (and
    (exists (?r - kitchen ?f - counter) (furniture-in-room ?f ?r))
    (not (exists (?r - kitchen) (in-room ?o ?r)))))
  (:goal (exists (?r - kitchen ?f - counter ?s - surface)
    (and (furniture-in-room ?f ?r) (surface-of ?s ?f) (on ?o ?s))))
  (:instruction
    "Put {{ o | ref }} on a kitchen counter."
    "Bring {{ o | ref }} to the kitchen and put it on a counter."
    "Carry {{ o | ref }} into the kitchen and leave it on one of the counters.")
  (:ambiguity reject))

(define (template l1-to-table-in-room)
  (:domain fdc-home)
  (:category level-1)
  (:level 1)
  (:tags manipulation process)
  (:version 1)
  (:description "Bring an item from another room to a table of a room, any of them (`?f - table`: dining, coffee, side and console tables included).")
  (:parameters ?o - movable ?r - room)
  (:constraints (and (exists (?f - table) (furniture-in-room ?f ?r)) (not (in-room ?o ?r))))
  (:goal (exists (?f - table ?s - surface)
    (and (furniture-in-room ?f ?r) (surface-of ?s ?f) (on ?o ?s))))
  (:instruction
    "Put {{ o | ref }} on a table in {{ r | ref }}."
    "Take {{ o | ref }} to {{ r | ref }} and set it down on a table there."
    "Carry {{ o | ref }} to {{ r | ref }} and leave it on any table there.")
  (:ambiguity reject))
