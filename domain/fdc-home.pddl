; fdc's home domain: a robot in a furnished home, moving household items between
; receptacles. Predicates are bound to Python checkers by name (fdc.predicates); each is
; static (scene facts), history (the robot's experience log) or fluent (run-time state).
(define (domain fdc-home)
  (:requirements
    :strips :typing :equality :negative-preconditions :universal-preconditions
    :conditional-effects :numeric-fluents)

  (:types
    room furniture surface movable value - object
    ; a surface of a piece of furniture; a surface of a movable item (a tray's top, a
    ; box's floor): `surface` is either
    furniture-surface item-top - surface
    receptacle - furniture-surface ; inside the furniture: a shelf in a cabinet
    articulated - furniture ; has parts that open and close
    food kitchenware tableware decor electronics clothing stationery toy tool - movable
    fruit vegetable snack drink - food
    ; container: a movable that holds items, a basket, a box; lamp ... soap: item
    ; categories of the shipped scenes with no kind above them: a reader does not agree
    ; that a clock is decor or a bottle tableware, and a kind's word is what an
    ; instruction says ("group the decor items"), so each stays a kind of its own
    container lamp clock bottle towel tray soap - movable
    box - container ; typed so only when it has a floor to put things in (docs/language.md)
    cup mug bowl plate glass - tableware
    pan pot kettle knife spoon - kitchenware
    book pen notebook - stationery
    apple banana pear lemon - fruit ; not orange: a colour constant
    vase candle plant - decor
    laptop remote - electronics
    toy-car - toy
    ; furniture and rooms by the scene's category (PDDL spelling): a piece of furniture or a
    ; room whose category is one of these has that type, so `?f - counter` is any counter
    ; and `?r - kitchen` any kitchen; other categories stay `furniture`, `articulated`, `room`
    table counter shelf bookshelf desk sofa bed nightstand sideboard tv-stand
    sink-cabinet washing-machine - furniture
    coffee-table side-table console-table dining-table - table
    kitchen-counter - counter
    cabinet fridge wardrobe - articulated
    kitchen living-room dining-room bedroom bathroom hallway office - room
    ; category: the scene's item categories; clock-time: clock minutes taken from the log;
    ; minutes: whole-minute interaction durations taken from the log
    color material shape cell side category clock-time minutes - value)

  (:constants
    red orange yellow green blue purple pink brown black white grey silver gold - color
    wood metal plastic glass-material ceramic fabric paper stone - material
    round square tall - shape
    front-left front front-right left center right rear-left rear rear-right - cell
    front-side left-side rear-side right-side - side)

  ; static: facts of the scene
  (:predicates
    (is-category ?o - movable ?c - value)
    (category-of ?o - movable ?c - category) ; its own category, no ancestors
    (has-color ?o - movable ?c - color)
    (has-material ?o - movable ?m - material)
    (has-shape ?o - movable ?s - shape)
    (surface-of ?s - surface ?f - furniture)
    (top-of ?t - item-top ?o - movable) ; the item's top (not a container's floor)
    (low-top ?t - item-top) ; what stands on it is on what the item stands on too
    (furniture-in-room ?f - furniture ?r - room)
    (initially-on ?o - movable ?s - surface) ; in the scene as given (its support)
    (fits ?o - movable ?s - surface) ; can stand on it at all (size, room above it)
    ; fluent: the world now
    (on ?o - movable ?s - surface)
    (inside ?o - movable ?c - (either receptacle container))
    (in-room ?o - movable ?r - room)
    (on-furniture ?o - movable) ; on a surface of a piece of furniture, in one atom
    (same-surface ?a ?b - movable) ; two items on one surface, in one atom
    (holding ?o - movable)
    (hand-empty)
    (robot-at-object ?o - movable)
    (robot-at-receptacle ?s - surface)
    (robot-in-room ?r - room)
    (in-cell ?o - movable ?s - surface ?c - cell)
    (at-side ?o ?a - movable ?d - cell)
    (around ?o ?a - movable)
    (between ?o ?a ?b - movable)
    (is-open ?f - articulated)
    ; fluent, PARTNR's relations (receptacles named as whole objects) and object states
    (on-top-of ?o - movable ?x - (either furniture movable))
    (inside-of ?o - movable ?x - (either furniture movable))
    (on-floor ?o - movable)
    (next-to ?a ?b - (either furniture movable))
    (is-clean ?o - (either furniture movable))
    (is-dirty ?o - (either furniture movable))
    (is-filled ?o - (either furniture movable))
    (is-empty ?o - (either furniture movable))
    (is-powered-on ?o - (either furniture movable))
    (is-powered-off ?o - (either furniture movable))
    ; history: the robot's experience
    (interacted ?o - movable)
    (picked-from ?o - movable ?s - surface)
    (placed-on ?o - movable ?s - surface)
    (next-interaction ?a ?b - movable)
    (visited ?r - room)
    (initial-room ?r - room)
    (final-room ?r - room)
    (seen ?o - movable) ; in view in some frame
    (interacting-at ?o - movable ?t - clock-time) ; held (pick to place) at that minute
    (started-in-room ?o - movable ?r - room) ; where the item was before the log
    (ended-in-room ?o - movable ?r - room) ; where the item is at the end of the log
    (took-minutes ?o - movable ?d - minutes)) ; its interaction time, in whole minutes

  (:functions
    (interaction-order ?o - movable) ; 1 for the first object interacted with
    (interaction-start ?o - movable) ; clock minutes when the pick began
    (interaction-end ?o - movable) ; clock minutes when the place ended
    (interaction-duration ?o - movable) ; minutes between pick and place
    (distance-from-start ?e - (either movable surface)) ; geodesic metres from the robot's start pose
    (time-in-room ?r - room) ; minutes spent in the room
    (visit-order ?r - room) ; 1 for the first room visited
    (pick-order ?s - surface) ; 1 for the first surface an item was picked from
    (place-order ?s - surface) ; 1 for the first surface an item was placed on
    (total-cost))

  ; Actions: a symbolic abstraction of the embedded world for planners (`fdc validate
  ; --solve`, `fdc export pddl`). Navigation reaches any furniture surface, any item top
  ; (a tray's, in the tray's room) and any item that is not in the hand, and puts the
  ; robot in that room; an item rests on one surface, and each geometric fluent (in-cell,
  ; around, at-side, between, inside, on-furniture) becomes true only by the placement
  ; that establishes it and false when an item it relates is picked up (every `on` of
  ; the item: one on a tray is on the table too). `in-room` is the checkers': an item
  ; put down is in the room of what it stands on, and a held item is in the robot's
  ; room (`pick` keeps it there, every walk carries it along); fluents no action here establishes
  ; (same-surface, PARTNR's relations and states) keep their initial value (`fdc
  ; validate` plans same-surface as its definition over `on`), but an item picked from
  ; the floor is no longer `on-floor` (nothing puts it back). A receptacle of
  ; articulated furniture is reached only while the furniture is open. An item goes
  ; only on a surface it `fits` (its size and the room above it); free space, which
  ; depends on what else stands there, is not modelled: `fdc validate --solve` acts each
  ; plan out in the embedded world and forbids a placement it refuses for lack of room.
  ; Item tops, as the embedded world has them: an item is picked only when nothing
  ; stands on its top or lies inside it (the world refuses: "take them off first"), so
  ; an item never moves while it carries others; `place-on-item` puts the held item on
  ; another's top, in that item's room, and, when the top is low (`low-top`: a tray, a
  ; book), on (and inside) every surface that item is on, as the `on` checker judges a
  ; cup on a tray on a table.
  (:action navigate-to-receptacle
    :parameters (?to - furniture-surface ?f - furniture ?r - room)
    :precondition (and (surface-of ?to ?f) (furniture-in-room ?f ?r))
    :effect (and
      (forall (?s - surface) (when (not (= ?s ?to)) (not (robot-at-receptacle ?s))))
      (forall (?x - room) (when (not (= ?x ?r)) (not (robot-in-room ?x))))
      (forall (?o - movable) (not (robot-at-object ?o)))
      (robot-at-receptacle ?to)
      (robot-in-room ?r)
      (forall (?h - movable) (when (holding ?h) (in-room ?h ?r)))
      (forall (?h - movable ?x - room)
        (when (and (holding ?h) (not (= ?x ?r))) (not (in-room ?h ?x))))
      (increase (total-cost) 1)))

  ; To the top of an item outside every room: the robot is then in no room either.
  (:action navigate-to-item-outside
    :parameters (?to - item-top ?i - movable)
    :precondition (and
      (top-of ?to ?i)
      (forall (?x - room) (not (in-room ?i ?x)))
      (not (holding ?i)))
    :effect (and
      (forall (?s - surface) (when (not (= ?s ?to)) (not (robot-at-receptacle ?s))))
      (forall (?x - room) (not (robot-in-room ?x)))
      (forall (?o - movable) (not (robot-at-object ?o)))
      (robot-at-receptacle ?to)
      (forall (?h - movable ?x - room) (when (holding ?h) (not (in-room ?h ?x))))
      (increase (total-cost) 1)))

  ; To an item's top (a tray's), in the room the item is in.
  (:action navigate-to-item
    :parameters (?to - item-top ?i - movable ?r - room)
    :precondition (and (top-of ?to ?i) (in-room ?i ?r) (not (holding ?i)))
    :effect (and
      (forall (?s - surface) (when (not (= ?s ?to)) (not (robot-at-receptacle ?s))))
      (forall (?x - room) (when (not (= ?x ?r)) (not (robot-in-room ?x))))
      (forall (?o - movable) (not (robot-at-object ?o)))
      (robot-at-receptacle ?to)
      (robot-in-room ?r)
      (forall (?h - movable) (when (holding ?h) (in-room ?h ?r)))
      (forall (?h - movable ?x - room)
        (when (and (holding ?h) (not (= ?x ?r))) (not (in-room ?h ?x))))
      (increase (total-cost) 1)))

  ; To an item where it stands (not in the hand), in its room: the goal of FindingDory's
  ; object navigation, and so of memory tasks, which start where the experience ends.
  (:action navigate-to-object
    :parameters (?o - movable ?r - room)
    :precondition (and (in-room ?o ?r) (not (holding ?o)))
    :effect (and
      (forall (?x - movable) (when (not (= ?x ?o)) (not (robot-at-object ?x))))
      (forall (?s - surface) (not (robot-at-receptacle ?s)))
      (forall (?x - room) (when (not (= ?x ?r)) (not (robot-in-room ?x))))
      (robot-at-object ?o)
      (robot-in-room ?r)
      (forall (?h - movable) (when (holding ?h) (in-room ?h ?r)))
      (forall (?h - movable ?x - room)
        (when (and (holding ?h) (not (= ?x ?r))) (not (in-room ?h ?x))))
      (increase (total-cost) 1)))

  (:action pick
    :parameters (?o - movable ?s - surface)
    :precondition (and
      (hand-empty)
      (on ?o ?s)
      (robot-at-receptacle ?s)
      (forall (?x - receptacle ?g - articulated)
        (imply (and (= ?x ?s) (surface-of ?x ?g)) (is-open ?g)))
      (forall (?t - item-top ?x - movable) (imply (top-of ?t ?o) (not (on ?x ?t))))
      (forall (?x - movable) (not (inside ?x ?o))))
    :effect (and
      (holding ?o)
      (not (hand-empty))
      (forall (?x - surface) (not (on ?o ?x)))
      (not (on-furniture ?o))
      (forall (?c - receptacle) (not (inside ?o ?c)))
      (forall (?c - container) (not (inside ?o ?c)))
      ; in the hand, where the robot is
      (forall (?r - room) (when (robot-in-room ?r) (in-room ?o ?r)))
      (forall (?r - room) (when (not (robot-in-room ?r)) (not (in-room ?o ?r))))
      (forall (?x - surface ?c - cell) (not (in-cell ?o ?x ?c)))
      (forall (?a - movable) (and (not (around ?o ?a)) (not (around ?a ?o))))
      (forall (?a - movable ?d - cell)
        (and (not (at-side ?o ?a ?d)) (not (at-side ?a ?o ?d))))
      (forall (?a ?b - movable)
        (and (not (between ?o ?a ?b)) (not (between ?a ?o ?b)) (not (between ?a ?b ?o))))
      (increase (total-cost) 1)))

  ; An item that stands on no surface (on the floor): walk to it and pick it up. The
  ; robot then stands by the item's old spot, at no surface, in the item's room.
  (:action pick-from-floor
    :parameters (?o - movable ?r - room)
    :precondition (and
      (hand-empty)
      (in-room ?o ?r)
      (forall (?s - surface) (not (on ?o ?s)))
      (forall (?t - item-top ?x - movable) (imply (top-of ?t ?o) (not (on ?x ?t))))
      (forall (?x - movable) (not (inside ?x ?o))))
    :effect (and
      (holding ?o)
      (not (hand-empty))
      (not (on-floor ?o))
      (forall (?s - surface) (not (robot-at-receptacle ?s)))
      (forall (?x - room)
        (when (not (= ?x ?r)) (and (not (robot-in-room ?x)) (not (in-room ?o ?x)))))
      (robot-in-room ?r)
      (forall (?x - movable) (not (robot-at-object ?x)))
      (forall (?a - movable) (and (not (around ?o ?a)) (not (around ?a ?o))))
      (forall (?a - movable ?d - cell)
        (and (not (at-side ?o ?a ?d)) (not (at-side ?a ?o ?d))))
      (forall (?a ?b - movable)
        (and (not (between ?o ?a ?b)) (not (between ?a ?o ?b)) (not (between ?a ?b ?o))))
      (increase (total-cost) 2)))

  ; The same for an item outside every room (a Habitat scene's regions need not cover
  ; the floor): the robot then stands in no room, and so does what it holds.
  (:action pick-from-floor-outside
    :parameters (?o - movable)
    :precondition (and
      (hand-empty)
      (forall (?x - room) (not (in-room ?o ?x)))
      (forall (?s - surface) (not (on ?o ?s)))
      (forall (?t - item-top ?x - movable) (imply (top-of ?t ?o) (not (on ?x ?t))))
      (forall (?x - movable) (not (inside ?x ?o))))
    :effect (and
      (holding ?o)
      (not (hand-empty))
      (not (on-floor ?o))
      (forall (?s - surface) (not (robot-at-receptacle ?s)))
      (forall (?x - room) (not (robot-in-room ?x)))
      (forall (?x - movable) (not (robot-at-object ?x)))
      (forall (?a - movable) (and (not (around ?o ?a)) (not (around ?a ?o))))
      (forall (?a - movable ?d - cell)
        (and (not (at-side ?o ?a ?d)) (not (at-side ?a ?o ?d))))
      (forall (?a ?b - movable)
        (and (not (between ?o ?a ?b)) (not (between ?a ?o ?b)) (not (between ?a ?b ?o))))
      (increase (total-cost) 2)))

  (:action place
    :parameters (?o - movable ?s - furniture-surface ?f - furniture ?r - room)
    :precondition (and
      (holding ?o)
      (robot-at-receptacle ?s)
      (fits ?o ?s)
      (surface-of ?s ?f)
      (furniture-in-room ?f ?r)
      (forall (?x - receptacle ?g - articulated)
        (imply (and (= ?x ?s) (surface-of ?x ?g)) (is-open ?g))))
    :effect (and
      (on ?o ?s)
      (forall (?x - receptacle) (when (= ?x ?s) (inside ?o ?x)))
      (in-room ?o ?r)
      (forall (?x - room) (when (not (= ?x ?r)) (not (in-room ?o ?x))))
      (on-furniture ?o)
      (hand-empty)
      (not (holding ?o))
      (increase (total-cost) 1)))

  (:action place-on-item
    :parameters (?o - movable ?t - item-top ?i - movable)
    :precondition (and
      (holding ?o)
      (not (= ?o ?i))
      (top-of ?t ?i)
      (fits ?o ?t)
      (robot-at-receptacle ?t))
    :effect (and
      (on ?o ?t)
      (forall (?r - room) (when (in-room ?i ?r) (in-room ?o ?r)))
      (forall (?r - room) (when (not (in-room ?i ?r)) (not (in-room ?o ?r))))
      (forall (?x - surface) (when (and (low-top ?t) (on ?i ?x)) (on ?o ?x)))
      (forall (?x - receptacle) (when (and (low-top ?t) (inside ?i ?x)) (inside ?o ?x)))
      (when (and (low-top ?t) (on-furniture ?i)) (on-furniture ?o))
      (hand-empty)
      (not (holding ?o))
      (increase (total-cost) 1)))

  (:action place-in-cell
    :parameters (?o - movable ?s - furniture-surface ?c - cell ?f - furniture ?r - room)
    :precondition (and
      (holding ?o)
      (robot-at-receptacle ?s)
      (fits ?o ?s)
      (surface-of ?s ?f)
      (furniture-in-room ?f ?r)
      (forall (?x - receptacle ?g - articulated)
        (imply (and (= ?x ?s) (surface-of ?x ?g)) (is-open ?g))))
    :effect (and
      (on ?o ?s)
      (in-cell ?o ?s ?c)
      (forall (?x - receptacle) (when (= ?x ?s) (inside ?o ?x)))
      (in-room ?o ?r)
      (forall (?x - room) (when (not (= ?x ?r)) (not (in-room ?o ?x))))
      (on-furniture ?o)
      (hand-empty)
      (not (holding ?o))
      (increase (total-cost) 1)))

  (:action place-around
    :parameters (?o ?a - movable ?s - furniture-surface ?f - furniture ?r - room)
    :precondition (and
      (holding ?o)
      (on ?a ?s)
      (robot-at-receptacle ?s)
      (fits ?o ?s)
      (surface-of ?s ?f)
      (furniture-in-room ?f ?r)
      (forall (?x - receptacle ?g - articulated)
        (imply (and (= ?x ?s) (surface-of ?x ?g)) (is-open ?g))))
    :effect (and
      (on ?o ?s)
      (around ?o ?a)
      (forall (?x - receptacle) (when (= ?x ?s) (inside ?o ?x)))
      (in-room ?o ?r)
      (forall (?x - room) (when (not (= ?x ?r)) (not (in-room ?o ?x))))
      (on-furniture ?o)
      (hand-empty)
      (not (holding ?o))
      (increase (total-cost) 1)))

  (:action place-at-side
    :parameters (?o ?a - movable ?d - cell ?s - furniture-surface ?f - furniture ?r - room)
    :precondition (and
      (holding ?o)
      (on ?a ?s)
      (not (= ?d center))
      (robot-at-receptacle ?s)
      (fits ?o ?s)
      (surface-of ?s ?f)
      (furniture-in-room ?f ?r)
      (forall (?x - receptacle ?g - articulated)
        (imply (and (= ?x ?s) (surface-of ?x ?g)) (is-open ?g))))
    :effect (and
      (on ?o ?s)
      (at-side ?o ?a ?d)
      (around ?o ?a)
      (forall (?x - receptacle) (when (= ?x ?s) (inside ?o ?x)))
      (in-room ?o ?r)
      (forall (?x - room) (when (not (= ?x ?r)) (not (in-room ?o ?x))))
      (on-furniture ?o)
      (hand-empty)
      (not (holding ?o))
      (increase (total-cost) 1)))

  (:action place-between
    :parameters (?o ?a ?b - movable ?s - furniture-surface ?f - furniture ?r - room)
    :precondition (and
      (holding ?o)
      (on ?a ?s)
      (on ?b ?s)
      (not (= ?a ?b))
      (robot-at-receptacle ?s)
      (fits ?o ?s)
      (surface-of ?s ?f)
      (furniture-in-room ?f ?r)
      (forall (?x - receptacle ?g - articulated)
        (imply (and (= ?x ?s) (surface-of ?x ?g)) (is-open ?g))))
    :effect (and
      (on ?o ?s)
      (between ?o ?a ?b)
      (forall (?x - receptacle) (when (= ?x ?s) (inside ?o ?x)))
      (in-room ?o ?r)
      (forall (?x - room) (when (not (= ?x ?r)) (not (in-room ?o ?x))))
      (on-furniture ?o)
      (hand-empty)
      (not (holding ?o))
      (increase (total-cost) 1)))

  (:action place-inside
    :parameters (?o - movable ?c - container ?s - furniture-surface ?f - furniture ?r - room)
    :precondition (and
      (holding ?o)
      (not (= ?o ?c))
      (on ?c ?s)
      (robot-at-receptacle ?s)
      (surface-of ?s ?f)
      (furniture-in-room ?f ?r)
      (forall (?x - receptacle ?g - articulated)
        (imply (and (= ?x ?s) (surface-of ?x ?g)) (is-open ?g))))
    :effect (and
      (inside ?o ?c)
      (in-room ?o ?r)
      (forall (?x - room) (when (not (= ?x ?r)) (not (in-room ?o ?x))))
      (hand-empty)
      (not (holding ?o))
      (increase (total-cost) 1)))

  (:action open
    :parameters (?f - articulated ?s - furniture-surface)
    :precondition (and
      (hand-empty)
      (surface-of ?s ?f)
      (robot-at-receptacle ?s)
      (not (is-open ?f)))
    :effect (and (is-open ?f) (increase (total-cost) 1)))

  (:action close
    :parameters (?f - articulated ?s - furniture-surface)
    :precondition (and
      (hand-empty)
      (surface-of ?s ?f)
      (robot-at-receptacle ?s)
      (is-open ?f))
    :effect (and (not (is-open ?f)) (increase (total-cost) 1))))
