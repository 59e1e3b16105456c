; FindingDory's unordered revisit tasks: every target once, in any order (each counts at
; an explicit stop). At least two targets, or it would be a single-goal task.
(define (template revisit-start-receptacles)
  (:domain fdc-home)
  (:category unordered-revisit)
  (:tags memory multi-goal)
  (:version 1)
  (:description "Visit every receptacle the robot picked an item from.")
  (:parameters)
  (:constraints (at-least 2 (?s - surface) (exists (?o - movable) (picked-from ?o ?s))))
  (:goal (targets (?s - surface)
    (exists (?o - movable) (picked-from ?o ?s))
    (robot-at-receptacle ?s)))
  (:instruction
    "Revisit all the receptacles you picked objects from yesterday."
    "Go back to each of the {{ n_targets | number_word }} receptacles you took objects from yesterday, in any order."
    "Visit again, in any order, every place you lifted objects from yesterday.")
  (:ambiguity reject))

(define (template revisit-goal-receptacles)
  (:domain fdc-home)
  (:category unordered-revisit)
  (:tags memory multi-goal)
  (:version 1)
  (:description "Visit every receptacle the robot put an item on.")
  (:parameters)
  (:constraints (at-least 2 (?s - surface) (exists (?o - movable) (placed-on ?o ?s))))
  (:goal (targets (?s - surface)
    (exists (?o - movable) (placed-on ?o ?s))
    (robot-at-receptacle ?s)))
  (:instruction
    "Revisit all the receptacles you placed objects on yesterday."
    "Go back to each of the {{ n_targets | number_word }} receptacles you put objects down on yesterday, in any order."
    "Visit again, in any order, every place you set objects down on yesterday.")
  (:ambiguity reject))

(define (template revisit-interacted-receptacles)
  (:domain fdc-home)
  (:category unordered-revisit)
  (:tags memory multi-goal)
  (:version 1)
  (:description "Visit every receptacle the robot picked an item from or put one on.")
  (:parameters)
  (:constraints (at-least 2 (?s - surface)
    (exists (?o - movable) (or (picked-from ?o ?s) (placed-on ?o ?s)))))
  (:goal (targets (?s - surface)
    (exists (?o - movable) (or (picked-from ?o ?s) (placed-on ?o ?s)))
    (robot-at-receptacle ?s)))
  (:instruction
    "Revisit all the receptacles you interacted with yesterday."
    "Go back to each of the {{ n_targets | number_word }} receptacles you took objects from or put objects on yesterday, in any order."
    "Visit again, in any order, every place you lifted objects from or set them on yesterday.")
  (:ambiguity reject))

(define (template revisit-interacted-objects)
  (:domain fdc-home)
  (:category unordered-revisit)
  (:tags memory multi-goal)
  (:version 1)
  (:description "Visit every object the robot interacted with.")
  (:parameters)
  (:constraints (at-least 2 (?x - movable) (interacted ?x)))
  (:goal (targets (?x - movable) (interacted ?x) (robot-at-object ?x)))
  (:instruction
    "Revisit all the objects you interacted with yesterday."
    "Go to each of the {{ n_targets | number_word }} objects you picked up yesterday, in any order."
    "Visit again, in any order, every object you handled yesterday.")
  (:ambiguity reject))

(define (template revisit-category-objects)
  (:domain fdc-home)
  (:category unordered-revisit)
  (:tags memory multi-goal)
  (:version 1)
  (:description "Visit every item of a category the robot interacted with.")
  (:parameters ?c - category)
  (:constraints (at-least 2 (?x - movable) (and (category-of ?x ?c) (interacted ?x))))
  (:goal (targets (?x - movable)
    (and (category-of ?x ?c) (interacted ?x))
    (robot-at-object ?x)))
  (:instruction
    "Revisit all the {{ c | plural }} you interacted with yesterday."
    "Go to each of the {{ n_targets | number_word }} {{ c | plural }} you picked up yesterday, in any order."
    "Visit again, in any order, every {{ c }} you handled yesterday.")
  (:ambiguity reject))

(define (template revisit-visited-rooms)
  (:domain fdc-home)
  (:category unordered-revisit)
  (:tags memory multi-goal)
  (:version 1)
  (:description "Visit every room the robot was in.")
  (:parameters)
  (:constraints (at-least 2 (?r - room) (visited ?r)))
  (:goal (targets (?r - room) (visited ?r) (robot-in-room ?r)))
  (:instruction
    "Revisit all the rooms you visited yesterday."
    "Go to each of the {{ n_targets | number_word }} rooms you were in yesterday, in any order."
    "Visit again, in any order, every room you entered yesterday.")
  (:ambiguity reject))

(define (template revisit-pick-rooms)
  (:domain fdc-home)
  (:category unordered-revisit)
  (:tags memory multi-goal)
  (:version 1)
  (:description "Visit every room the robot picked an item up in.")
  (:parameters)
  (:constraints (at-least 2 (?r - room)
    (exists (?o - movable) (and (interacted ?o) (started-in-room ?o ?r)))))
  (:goal (targets (?r - room)
    (exists (?o - movable) (and (interacted ?o) (started-in-room ?o ?r)))
    (robot-in-room ?r)))
  (:instruction
    "Revisit all the rooms you picked objects up in yesterday."
    "Go to each of the {{ n_targets | number_word }} rooms you took objects from yesterday, in any order."
    "Visit again, in any order, every room where you lifted objects yesterday.")
  (:ambiguity reject))
