; FindingDory's object recall: go to an item of a category the robot saw during its
; experience. Categories are the items' own (`category-of`), never a type above them, so
; an instruction never says "a tableware".
(define (template recall-category)
  (:domain fdc-home)
  (:category object-recall)
  (:tags memory single-goal)
  (:version 1)
  (:description "Go to any item of a category the robot saw.")
  (:parameters ?c - category)
  (:constraints (exists (?x - movable) (and (category-of ?x ?c) (seen ?x))))
  (:goal (exists (?x - movable) (and (category-of ?x ?c) (robot-at-object ?x))))
  (:instruction
    "Navigate to {{ c | a }}."
    "Go to any {{ c }} you saw yesterday."
    "Find {{ c | a }} you noticed yesterday.")
  (:ambiguity reject))

; The category is also found in other rooms, so the room is what the robot must recall.
(define (template recall-category-in-room)
  (:domain fdc-home)
  (:category object-recall)
  (:tags memory single-goal)
  (:version 1)
  (:description "Go to an item of a category the robot saw in a given room.")
  (:parameters ?c - category ?r - room)
  (:constraints (and
    (exists (?x - movable) (and (category-of ?x ?c) (seen ?x) (ended-in-room ?x ?r)))
    (exists (?x - movable) (and (category-of ?x ?c) (not (ended-in-room ?x ?r))))))
  (:goal (exists (?x - movable)
    (and (category-of ?x ?c) (ended-in-room ?x ?r) (robot-at-object ?x))))
  (:instruction
    "Navigate to {{ c | a }} in {{ r | ref }}."
    "Go to {{ c | a }} that you saw in {{ r | ref }} yesterday."
    "Find {{ c | a }} you noticed in {{ r | ref }} yesterday.")
  (:ambiguity reject))
