; FindingDory's interaction order tasks: objects by the order the robot interacted with
; them (`interaction-order`: 1 for the first object picked), receptacles by the order it
; first picked from or placed on them (`pick-order`, `place-order`), and objects next to
; a reference object in the sequence of interactions. Ordinals are spelled by the
; `ordinal_word` filter, right past the tenth. A reference object is named by its
; category when it is the only item of that category the robot interacted with.
(define (template order-first-object)
  (:domain fdc-home)
  (:category interaction-order)
  (:tags memory single-goal)
  (:version 1)
  (:description "Go to the first object the robot interacted with.")
  (:parameters ?o - movable)
  (:constraints (= (interaction-order ?o) 1))
  (:goal (robot-at-object ?o))
  (:instruction
    "Navigate to the {{ 1 | ordinal_word }} object you interacted with yesterday."
    "Go to the object you picked up first yesterday."
    "Find the very first thing you handled yesterday.")
  (:ambiguity reject))

(define (template order-second-object)
  (:domain fdc-home)
  (:category interaction-order)
  (:tags memory single-goal)
  (:version 1)
  (:description "Go to the second object the robot interacted with.")
  (:parameters ?o - movable)
  (:constraints (= (interaction-order ?o) 2))
  (:goal (robot-at-object ?o))
  (:instruction
    "Navigate to the {{ 2 | ordinal_word }} object you interacted with yesterday."
    "Go to the object you picked up {{ 2 | ordinal_word }} yesterday."
    "Find the thing you handled second yesterday.")
  (:ambiguity reject))

(define (template order-third-object)
  (:domain fdc-home)
  (:category interaction-order)
  (:tags memory single-goal)
  (:version 1)
  (:description "Go to the third object the robot interacted with.")
  (:parameters ?o - movable)
  (:constraints (= (interaction-order ?o) 3))
  (:goal (robot-at-object ?o))
  (:instruction
    "Navigate to the {{ 3 | ordinal_word }} object you interacted with yesterday."
    "Go to the object you picked up {{ 3 | ordinal_word }} yesterday."
    "Find the thing you handled third yesterday.")
  (:ambiguity reject))

(define (template order-last-object)
  (:domain fdc-home)
  (:category interaction-order)
  (:tags memory single-goal)
  (:version 1)
  (:description "Go to the last object the robot interacted with.")
  (:parameters ?o - movable)
  (:constraints (and
    (argmax ?o (?x - movable) (interaction-order ?x) (interacted ?x))
    (at-least 2 (?x - movable) (interacted ?x))))
  (:goal (robot-at-object ?o))
  (:instruction
    "Navigate to the last object you interacted with yesterday."
    "Go to the object you picked up last yesterday."
    "Find the very last thing you handled yesterday.")
  (:ambiguity reject))

(define (template order-second-to-last-object)
  (:domain fdc-home)
  (:category interaction-order)
  (:tags memory single-goal)
  (:version 1)
  (:description "Go to the object the robot interacted with just before the last one.")
  (:parameters ?o ?last - movable)
  (:constraints (and
    (argmax ?last (?x - movable) (interaction-order ?x) (interacted ?x))
    (= (+ (interaction-order ?o) 1) (interaction-order ?last))))
  (:goal (robot-at-object ?o))
  (:instruction
    "Navigate to the second-to-last object you interacted with yesterday."
    "Go to the object you picked up just before the last one yesterday."
    "Find the thing you handled next to last yesterday.")
  (:ambiguity reject))

(define (template order-after-category)
  (:domain fdc-home)
  (:category interaction-order)
  (:tags memory single-goal)
  (:version 1)
  (:description "Go to the object the robot interacted with right after a given one.")
  (:parameters ?c - category ?prev ?o - movable)
  (:constraints (and
    (category-of ?prev ?c)
    (interacted ?prev)
    (exactly 1 (?x - movable) (and (category-of ?x ?c) (interacted ?x)))
    (next-interaction ?prev ?o)
    (exactly 1 (?x - movable) (next-interaction ?prev ?x))))
  (:goal (robot-at-object ?o))
  (:instruction
    "Navigate to the object you interacted with immediately after the {{ c }}."
    "Go to the object you picked up right after the {{ c }} yesterday."
    "Find what you handled just after the {{ c }} yesterday.")
  (:ambiguity reject))

(define (template order-before-category)
  (:domain fdc-home)
  (:category interaction-order)
  (:tags memory single-goal)
  (:version 1)
  (:description "Go to the object the robot interacted with right before a given one.")
  (:parameters ?c - category ?next ?o - movable)
  (:constraints (and
    (category-of ?next ?c)
    (interacted ?next)
    (exactly 1 (?x - movable) (and (category-of ?x ?c) (interacted ?x)))
    (next-interaction ?o ?next)
    (exactly 1 (?x - movable) (next-interaction ?x ?next))))
  (:goal (robot-at-object ?o))
  (:instruction
    "Navigate to the object you interacted with immediately before the {{ c }}."
    "Go to the object you picked up right before the {{ c }} yesterday."
    "Find what you handled just before the {{ c }} yesterday.")
  (:ambiguity reject))

(define (template order-between-categories)
  (:domain fdc-home)
  (:category interaction-order)
  (:tags memory single-goal)
  (:version 1)
  (:description "Go to the object the robot interacted with between two given ones.")
  (:parameters ?a ?b - category ?prev ?o ?next - movable)
  (:constraints (and
    (category-of ?prev ?a)
    (category-of ?next ?b)
    (exactly 1 (?x - movable) (and (category-of ?x ?a) (interacted ?x)))
    (exactly 1 (?x - movable) (and (category-of ?x ?b) (interacted ?x)))
    (next-interaction ?prev ?o)
    (next-interaction ?o ?next)
    (exactly 1 (?x - movable) (and (next-interaction ?prev ?x) (next-interaction ?x ?next)))))
  (:goal (robot-at-object ?o))
  (:instruction
    "Navigate to the object you interacted with after the {{ a }} and before the {{ b }}."
    "Go to the object you picked up between the {{ a }} and the {{ b }} yesterday."
    "Find what you handled after the {{ a }} but before the {{ b }} yesterday.")
  (:ambiguity reject))

(define (template order-two-after-category)
  (:domain fdc-home)
  (:category interaction-order)
  (:tags memory single-goal)
  (:version 1)
  (:description "Go to the object the robot interacted with two objects after a given one.")
  (:parameters ?c - category ?prev ?o - movable)
  (:constraints (and
    (category-of ?prev ?c)
    (interacted ?prev)
    (exactly 1 (?x - movable) (and (category-of ?x ?c) (interacted ?x)))
    (= (interaction-order ?o) (+ (interaction-order ?prev) 2))))
  (:goal (robot-at-object ?o))
  (:instruction
    "Navigate to the {{ 2 | ordinal_word }} object you interacted with after the {{ c }}."
    "Go to the object you picked up two objects after the {{ c }} yesterday."
    "Find what you handled two objects after the {{ c }} yesterday.")
  (:ambiguity reject))

(define (template order-first-of-category)
  (:domain fdc-home)
  (:category interaction-order)
  (:tags memory single-goal)
  (:version 1)
  (:description "Go to the item of a category the robot interacted with first, of several.")
  (:parameters ?c - category ?o - movable)
  (:constraints (and
    (category-of ?o ?c)
    (at-least 2 (?x - movable) (and (category-of ?x ?c) (interacted ?x)))
    (argmin ?o (?x - movable)
      (interaction-order ?x)
      (and (category-of ?x ?c) (interacted ?x)))))
  (:goal (robot-at-object ?o))
  (:instruction
    "Navigate to the {{ c }} you interacted with first yesterday."
    "Of the {{ c | plural }} you picked up yesterday, go to the one you picked up first."
    "Find the {{ c }} you handled earliest yesterday.")
  (:ambiguity reject))

(define (template order-last-of-category)
  (:domain fdc-home)
  (:category interaction-order)
  (:tags memory single-goal)
  (:version 1)
  (:description "Go to the item of a category the robot interacted with last, of several.")
  (:parameters ?c - category ?o - movable)
  (:constraints (and
    (category-of ?o ?c)
    (at-least 2 (?x - movable) (and (category-of ?x ?c) (interacted ?x)))
    (argmax ?o (?x - movable)
      (interaction-order ?x)
      (and (category-of ?x ?c) (interacted ?x)))))
  (:goal (robot-at-object ?o))
  (:instruction
    "Navigate to the {{ c }} you interacted with last yesterday."
    "Of the {{ c | plural }} you picked up yesterday, go to the one you picked up last."
    "Find the {{ c }} you handled latest yesterday.")
  (:ambiguity reject))

(define (template order-first-in-room)
  (:domain fdc-home)
  (:category interaction-order)
  (:tags memory single-goal)
  (:version 1)
  (:description "Go to the first object the robot picked up in a given room, of several.")
  (:parameters ?r - room ?o - movable)
  (:constraints (and
    (started-in-room ?o ?r)
    (at-least 2 (?x - movable) (and (interacted ?x) (started-in-room ?x ?r)))
    (argmin ?o (?x - movable)
      (interaction-order ?x)
      (and (interacted ?x) (started-in-room ?x ?r)))))
  (:goal (robot-at-object ?o))
  (:instruction
    "Navigate to the {{ 1 | ordinal_word }} object you picked up in {{ r | ref }} yesterday."
    "Go to the object you took first from {{ r | ref }} yesterday."
    "In {{ r | ref }}, find the first thing you lifted yesterday.")
  (:ambiguity reject))

(define (template order-first-pick-receptacle)
  (:domain fdc-home)
  (:category interaction-order)
  (:tags memory single-goal)
  (:version 1)
  (:description "Go to the first receptacle the robot picked an item from.")
  (:parameters ?s - surface)
  (:constraints (= (pick-order ?s) 1))
  (:goal (robot-at-receptacle ?s))
  (:instruction
    "Navigate to the {{ 1 | ordinal_word }} receptacle you picked an object from yesterday."
    "Go to the receptacle you took your first object from yesterday."
    "Return to the spot you lifted your very first object from yesterday.")
  (:ambiguity reject))

(define (template order-second-pick-receptacle)
  (:domain fdc-home)
  (:category interaction-order)
  (:tags memory single-goal)
  (:version 1)
  (:description "Go to the second receptacle the robot picked an item from.")
  (:parameters ?s - surface)
  (:constraints (= (pick-order ?s) 2))
  (:goal (robot-at-receptacle ?s))
  (:instruction
    "Navigate to the {{ 2 | ordinal_word }} receptacle you picked an object from yesterday."
    "Go to the {{ 2 | ordinal_word }} place you took an object from yesterday."
    "Return to the spot you lifted your second object from yesterday.")
  (:ambiguity reject))

(define (template order-last-pick-receptacle)
  (:domain fdc-home)
  (:category interaction-order)
  (:tags memory single-goal)
  (:version 1)
  (:description "Go to the last receptacle the robot picked an item from.")
  (:parameters ?s - surface)
  (:constraints (and
    (argmax ?s (?x - surface) (pick-order ?x))
    (at-least 2 (?x - surface) (exists (?y - movable) (picked-from ?y ?x)))))
  (:goal (robot-at-receptacle ?s))
  (:instruction
    "Navigate to the last receptacle you picked an object from yesterday."
    "Go to the receptacle you took your last object from yesterday."
    "Return to the spot you lifted your final object from yesterday.")
  (:ambiguity reject))

(define (template order-first-place-receptacle)
  (:domain fdc-home)
  (:category interaction-order)
  (:tags memory single-goal)
  (:version 1)
  (:description "Go to the first receptacle the robot put an item on.")
  (:parameters ?s - surface)
  (:constraints (= (place-order ?s) 1))
  (:goal (robot-at-receptacle ?s))
  (:instruction
    "Navigate to the {{ 1 | ordinal_word }} receptacle you placed an object on yesterday."
    "Go to the receptacle you put your first object down on yesterday."
    "Return to the spot you set your very first object on yesterday.")
  (:ambiguity reject))

(define (template order-last-place-receptacle)
  (:domain fdc-home)
  (:category interaction-order)
  (:tags memory single-goal)
  (:version 1)
  (:description "Go to the last receptacle the robot put an item on.")
  (:parameters ?s - surface)
  (:constraints (and
    (argmax ?s (?x - surface) (place-order ?x))
    (at-least 2 (?x - surface) (exists (?y - movable) (placed-on ?y ?x)))))
  (:goal (robot-at-receptacle ?s))
  (:instruction
    "Navigate to the last receptacle you placed an object on yesterday."
    "Go to the receptacle you put your last object down on yesterday."
    "Return to the spot you set your final object on yesterday.")
  (:ambiguity reject))

(define (template order-receptacle-after-category)
  (:domain fdc-home)
  (:category interaction-order)
  (:tags memory single-goal)
  (:version 1)
  (:description "Go to where the robot put the object it handled right after a given one.")
  (:parameters ?c - category ?prev ?o - movable ?s - surface)
  (:constraints (and
    (category-of ?prev ?c)
    (interacted ?prev)
    (exactly 1 (?x - movable) (and (category-of ?x ?c) (interacted ?x)))
    (next-interaction ?prev ?o)
    (exactly 1 (?x - movable) (next-interaction ?prev ?x))
    (placed-on ?o ?s)
    (exactly 1 (?x - surface) (placed-on ?o ?x))))
  (:goal (robot-at-receptacle ?s))
  (:instruction
    "Navigate to the receptacle where you placed the object you interacted with immediately after the {{ c }}."
    "Go to where you put down the object you picked up right after the {{ c }} yesterday."
    "Return to the spot where you set down what you handled just after the {{ c }} yesterday.")
  (:ambiguity reject))
