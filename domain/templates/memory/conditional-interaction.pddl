; FindingDory's conditional interaction tasks: receptacles in the role they played
; (an item was picked from it, put on it) and the items that played the other role.
; An item is named by its category when it is the only item of that category the robot
; interacted with, so its description never gives away where it is now.
(define (template conditional-picked-from)
  (:domain fdc-home)
  (:category conditional-interaction)
  (:tags memory single-goal)
  (:version 1)
  (:description "Go to any receptacle the robot picked an item from.")
  (:parameters)
  (:goal (exists (?s - surface)
    (and (exists (?o - movable) (picked-from ?o ?s)) (robot-at-receptacle ?s))))
  (:instruction
    "Navigate to a receptacle you picked an object from."
    "Go to a receptacle that you took an object from yesterday."
    "Return to any spot you lifted something from yesterday.")
  (:ambiguity reject))

(define (template conditional-placed-on)
  (:domain fdc-home)
  (:category conditional-interaction)
  (:tags memory single-goal)
  (:version 1)
  (:description "Go to any receptacle the robot put an item on.")
  (:parameters)
  (:goal (exists (?s - surface)
    (and (exists (?o - movable) (placed-on ?o ?s)) (robot-at-receptacle ?s))))
  (:instruction
    "Navigate to a receptacle you placed an object on."
    "Go to a receptacle that you put an object down on yesterday."
    "Return to any spot you set something down on yesterday.")
  (:ambiguity reject))

(define (template conditional-category-picked-from)
  (:domain fdc-home)
  (:category conditional-interaction)
  (:tags memory single-goal)
  (:version 1)
  (:description "Go to a receptacle the robot picked an item of a category from.")
  (:parameters ?c - category)
  (:constraints (exists (?o - movable) (and (category-of ?o ?c) (interacted ?o))))
  (:goal (exists (?s - surface)
    (and
      (exists (?o - movable) (and (category-of ?o ?c) (picked-from ?o ?s)))
      (robot-at-receptacle ?s))))
  (:instruction
    "Navigate to a receptacle you picked {{ c | a }} from."
    "Go to the place where you picked up {{ c | a }} yesterday."
    "Return to a spot where you lifted {{ c | a }} yesterday.")
  (:ambiguity reject))

(define (template conditional-category-placed-on)
  (:domain fdc-home)
  (:category conditional-interaction)
  (:tags memory single-goal)
  (:version 1)
  (:description "Go to a receptacle the robot put an item of a category on.")
  (:parameters ?c - category)
  (:constraints (exists (?o - movable) (and (category-of ?o ?c) (interacted ?o))))
  (:goal (exists (?s - surface)
    (and
      (exists (?o - movable) (and (category-of ?o ?c) (placed-on ?o ?s)))
      (robot-at-receptacle ?s))))
  (:instruction
    "Navigate to a receptacle you placed {{ c | a }} on."
    "Go to the place where you put down {{ c | a }} yesterday."
    "Return to a spot where you set {{ c | a }} down yesterday.")
  (:ambiguity reject))

; The item left the receptacle: finding it takes remembering where it went.
(define (template conditional-object-picked-from)
  (:domain fdc-home)
  (:category conditional-interaction)
  (:tags memory single-goal)
  (:version 1)
  (:description "Go to the one item the robot picked from a given receptacle.")
  (:parameters ?s - surface ?o - movable)
  (:constraints (and
    (picked-from ?o ?s)
    (exactly 1 (?x - movable) (picked-from ?x ?s))
    (not (placed-on ?o ?s))))
  (:goal (robot-at-object ?o))
  (:instruction
    "Navigate to the object you picked from {{ s | ref }}."
    "Go to the object that you took from {{ s | ref }} yesterday."
    "Find the thing you lifted from {{ s | ref }} yesterday.")
  (:ambiguity reject))

(define (template conditional-object-placed-on)
  (:domain fdc-home)
  (:category conditional-interaction)
  (:tags memory single-goal)
  (:version 1)
  (:description "Go to the one item the robot put on a given receptacle.")
  (:parameters ?s - surface ?o - movable)
  (:constraints (and (placed-on ?o ?s) (exactly 1 (?x - movable) (placed-on ?x ?s))))
  (:goal (robot-at-object ?o))
  (:instruction
    "Navigate to the object you placed {{ s | on }}."
    "Go to the object that you put down {{ s | on }} yesterday."
    "Find the thing you set down {{ s | on }} yesterday.")
  (:ambiguity reject))

(define (template conditional-start-receptacle-of-category)
  (:domain fdc-home)
  (:category conditional-interaction)
  (:tags memory single-goal)
  (:version 1)
  (:description "Go to the receptacle the robot picked the one item of a category it moved from.")
  (:parameters ?c - category ?o - movable ?s - surface)
  (:constraints (and
    (category-of ?o ?c)
    (exactly 1 (?x - movable) (and (category-of ?x ?c) (interacted ?x)))
    (picked-from ?o ?s)
    (exactly 1 (?x - surface) (picked-from ?o ?x))
    (not (placed-on ?o ?s))))
  (:goal (robot-at-receptacle ?s))
  (:instruction
    "Navigate to the receptacle you picked the {{ c }} from."
    "Go back to where the {{ c }} was before you moved it yesterday."
    "Return to the spot where the {{ c }} you moved yesterday was before you took it.")
  (:ambiguity reject))

(define (template conditional-object-moved-between)
  (:domain fdc-home)
  (:category conditional-interaction)
  (:tags memory single-goal)
  (:version 1)
  (:description "Go to the one item the robot moved from one receptacle to another.")
  (:parameters ?src ?dst - surface ?o - movable)
  (:constraints (and
    (picked-from ?o ?src)
    (placed-on ?o ?dst)
    (exactly 1 (?x - movable) (and (picked-from ?x ?src) (placed-on ?x ?dst)))))
  (:goal (robot-at-object ?o))
  (:instruction
    "Navigate to the object you moved from {{ src | ref }} to {{ dst | ref }}."
    "Go to the object that you took from {{ src | ref }} and put {{ dst | on }} yesterday."
    "Find what you carried from {{ src | ref }} to {{ dst | ref }} yesterday.")
  (:ambiguity reject))
