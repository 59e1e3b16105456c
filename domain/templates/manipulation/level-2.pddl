; ManiTaskGen's level 2 process tasks: the relocations of level 1, for an item that has a
; look-alike (another item of its category ?k) on the surface it starts on. The
; instruction still says `{{ o | ref }}`: the describe pass must tell the item from its
; neighbour by an attribute or a relation ("the blue plate"), or the binding is dropped.
; Fluent atoms in :constraints read the scene's initial state.
(define (template l2-to-surface)
  (:domain fdc-home)
  (:category level-2)
  (:level 2)
  (:tags manipulation process)
  (:version 1)
  (:description "Move an item that has a look-alike on its surface to an empty surface of a piece of furniture.")
  (:parameters ?o - movable ?k - category ?s - furniture-surface ?f - furniture)
  (:constraints (and
    (category-of ?o ?k)
    (surface-of ?s ?f)
    (not (exists (?x - movable) (on ?x ?s)))
    (exists (?x - movable)
      (and
        (category-of ?x ?k)
        (not (= ?x ?o))
        (exists (?t - surface) (and (on ?o ?t) (on ?x ?t)))))))
  (:goal (on ?o ?s))
  (:instruction
    "Move {{ o | ref }} to {{ s | ref }}."
    "Put {{ o | ref }} {{ s | on }}."
    "Place {{ o | ref }} {{ s | on }}.")
  (:ambiguity reject))

(define (template l2-to-cell)
  (:domain fdc-home)
  (:category level-2)
  (:level 2)
  (:tags manipulation process)
  (:version 1)
  (:description "Move an item that has a look-alike on its surface to one cell of the 3x3 grid of an empty furniture surface (cells in the surface's own frame, judged by the item's centre).")
  (:parameters ?o - movable ?k - category ?s - furniture-surface ?f - furniture ?c - cell)
  (:constraints (and
    (category-of ?o ?k)
    (surface-of ?s ?f)
    (not (exists (?x - movable) (on ?x ?s)))
    (exists (?x - movable)
      (and
        (category-of ?x ?k)
        (not (= ?x ?o))
        (exists (?t - surface) (and (on ?o ?t) (on ?x ?t)))))))
  (:goal (in-cell ?o ?s ?c))
  (:instruction
    "Move {{ o | ref }} to the {{ c }} part of {{ s | ref }}."
    "Put {{ o | ref }} in the {{ c }} part of {{ s | ref }}."
    "Place {{ o | ref }} so it sits in the {{ c }} part of {{ s | ref }}.")
  (:ambiguity reject))

(define (template l2-around)
  (:domain fdc-home)
  (:category level-2)
  (:level 2)
  (:tags manipulation process)
  (:version 1)
  (:description "Move an item that has a look-alike on its surface into one of the 8 regions around an anchor that stands on a furniture surface.")
  (:parameters ?o - movable ?k - category ?a - movable ?s - furniture-surface ?f - furniture)
  (:constraints (and
    (category-of ?o ?k)
    (initially-on ?a ?s)
    (surface-of ?s ?f)
    (exists (?x - movable)
      (and
        (category-of ?x ?k)
        (not (= ?x ?o))
        (exists (?t - surface) (and (on ?o ?t) (on ?x ?t)))))))
  (:goal (around ?o ?a))
  (:instruction
    "Move {{ o | ref }} around {{ a | ref }}."
    "Put {{ o | ref }} next to {{ a | ref }}."
    "Place {{ o | ref }} somewhere beside {{ a | ref }}.")
  (:ambiguity reject))

(define (template l2-to-side)
  (:domain fdc-home)
  (:category level-2)
  (:level 2)
  (:tags manipulation process)
  (:version 1)
  (:description "Move an item that has a look-alike on its surface to an anchor's region in one direction (in the words of the viewer at the anchor's surface).")
  (:parameters ?o - movable ?k - category ?a - movable ?s - furniture-surface ?f - furniture ?d - cell)
  (:constraints (and
    (category-of ?o ?k)
    (initially-on ?a ?s)
    (surface-of ?s ?f)
    (not (= ?d center))
    (exists (?x - movable)
      (and
        (category-of ?x ?k)
        (not (= ?x ?o))
        (exists (?t - surface) (and (on ?o ?t) (on ?x ?t)))))))
  (:goal (at-side ?o ?a ?d))
  (:instruction
    "Move {{ o | ref }} to the {{ d }} side of {{ a | ref }}."
    "Put {{ o | ref }} on the {{ d }} side of {{ a | ref }}."
    "Place {{ o | ref }} at the {{ d }} side of {{ a | ref }}.")
  (:ambiguity reject))

(define (template l2-between)
  (:domain fdc-home)
  (:category level-2)
  (:level 2)
  (:tags manipulation process)
  (:version 1)
  (:description "Move an item that has a look-alike on its surface between two anchors that stand on one furniture surface.")
  (:parameters ?o - movable ?k - category ?a ?b - movable ?s - furniture-surface ?f - furniture)
  (:constraints (and
    (category-of ?o ?k)
    (initially-on ?a ?s)
    (initially-on ?b ?s)
    (surface-of ?s ?f)
    (exists (?x - movable)
      (and
        (category-of ?x ?k)
        (not (= ?x ?o))
        (exists (?t - surface) (and (on ?o ?t) (on ?x ?t)))))))
  (:goal (between ?o ?a ?b))
  (:instruction
    "Move {{ o | ref }} between {{ a | ref }} and {{ b | ref }}."
    "Put {{ o | ref }} between {{ a | ref }} and {{ b | ref }}."
    "Place {{ o | ref }} in the gap between {{ a | ref }} and {{ b | ref }}.")
  (:ambiguity reject))

(define (template l2-into-furniture)
  (:domain fdc-home)
  (:category level-2)
  (:level 2)
  (:tags manipulation process)
  (:version 1)
  (:description "Put an item that has a look-alike on its surface inside a piece of furniture that opens (on any of its inner surfaces).")
  (:parameters ?o - movable ?k - category ?f - articulated)
  (:constraints (and
    (category-of ?o ?k)
    (exists (?r - receptacle) (surface-of ?r ?f))
    (exists (?x - movable)
      (and
        (category-of ?x ?k)
        (not (= ?x ?o))
        (exists (?t - surface) (and (on ?o ?t) (on ?x ?t)))))))
  (:goal (exists (?r - receptacle) (and (surface-of ?r ?f) (inside ?o ?r))))
  (:instruction
    "Put {{ o | ref }} in {{ f | ref }}."
    "Move {{ o | ref }} into {{ f | ref }}."
    "Store {{ o | ref }} inside {{ f | ref }}.")
  (:ambiguity reject))

(define (template l2-into-container)
  (:domain fdc-home)
  (:category level-2)
  (:level 2)
  (:tags manipulation process)
  (:version 1)
  (:description "Put an item that has a look-alike on its surface inside a container item (a basket, a box).")
  (:parameters ?o - movable ?k - category ?c - container)
  (:constraints (and
    (category-of ?o ?k)
    (exists (?x - movable)
      (and
        (category-of ?x ?k)
        (not (= ?x ?o))
        (exists (?t - surface) (and (on ?o ?t) (on ?x ?t)))))))
  (:goal (inside ?o ?c))
  (:instruction
    "Put {{ o | ref }} in {{ c | ref }}."
    "Move {{ o | ref }} into {{ c | ref }}."
    "Place {{ o | ref }} inside {{ c | ref }}.")
  (:ambiguity reject))
