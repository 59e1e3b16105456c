; fdc's home domain: a robot in a furnished home, moving household items between
; receptacles. Predicates are bound to Python checkers by name (fdc.predicates); each is
; static (scene facts), history (the robot's experience log) or fluent (run-time state).
(define (domain fdc-home)
  (:requirements :strips :typing :negative-preconditions :numeric-fluents)

  (:types
    room furniture surface movable value - object
    receptacle - surface ; a surface inside something: a shelf in a cabinet
    articulated - furniture ; has parts that open and close
    food kitchenware tableware decor electronics clothing stationery toy tool - movable
    fruit vegetable snack drink - food
    container - movable ; a movable that holds items: a basket, a box
    cup mug bowl plate glass - tableware
    pan pot kettle knife spoon - kitchenware
    book pen notebook - stationery
    ; category: the scene's item categories; clock-time: clock minutes taken from the log;
    ; minutes: whole-minute interaction durations taken from the log
    color material shape cell side category clock-time minutes - value)

  (:constants
    red orange yellow green blue purple pink brown black white grey silver gold - color
    wood metal plastic glass-material ceramic fabric paper stone - material
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
    (furniture-in-room ?f - furniture ?r - room)
    (initially-on ?o - movable ?s - surface) ; in the scene as given (its support)
    ; fluent: the world now
    (on ?o - movable ?s - surface)
    (inside ?o - movable ?c - (either receptacle container))
    (in-room ?o - movable ?r - room)
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

  (:action navigate-to-receptacle
    :parameters (?from ?to - surface ?r - room ?f - furniture)
    :precondition (and
      (robot-at-receptacle ?from)
      (surface-of ?to ?f)
      (furniture-in-room ?f ?r))
    :effect (and
      (not (robot-at-receptacle ?from))
      (robot-at-receptacle ?to)
      (robot-in-room ?r)
      (increase (total-cost) 1)))

  (:action pick
    :parameters (?o - movable ?s - surface)
    :precondition (and (hand-empty) (on ?o ?s) (robot-at-receptacle ?s))
    :effect (and (holding ?o) (not (hand-empty)) (not (on ?o ?s)) (increase (total-cost) 1)))

  (:action place
    :parameters (?o - movable ?s - surface)
    :precondition (and (holding ?o) (robot-at-receptacle ?s))
    :effect (and (on ?o ?s) (hand-empty) (not (holding ?o)) (increase (total-cost) 1)))

  (:action open
    :parameters (?f - articulated ?s - surface)
    :precondition (and
      (hand-empty)
      (surface-of ?s ?f)
      (robot-at-receptacle ?s)
      (not (is-open ?f)))
    :effect (and (is-open ?f) (increase (total-cost) 1)))

  (:action close
    :parameters (?f - articulated ?s - surface)
    :precondition (and
      (hand-empty)
      (surface-of ?s ?f)
      (robot-at-receptacle ?s)
      (is-open ?f))
    :effect (and (not (is-open ?f)) (increase (total-cost) 1))))
