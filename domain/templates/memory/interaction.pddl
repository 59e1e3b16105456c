; FindingDory's interaction tasks: objects and receptacles the robot did or did not
; interact with. A receptacle was interacted with when an item was picked from it or put
; on it. Receptacles are the surfaces of furniture.
(define (template interaction-object-not-interacted)
  (:domain fdc-home)
  (:category interaction)
  (:tags memory single-goal)
  (:version 1)
  (:description "Go to any object the robot did not interact with.")
  (:parameters)
  (:constraints (exists (?x - movable) (not (interacted ?x))))
  (:goal (exists (?x - movable) (and (not (interacted ?x)) (robot-at-object ?x))))
  (:instruction
    "Navigate to any object that you did not interact with yesterday."
    "Go to an object you did not pick up yesterday."
    "Head to anything you left untouched yesterday.")
  (:ambiguity reject))

(define (template interaction-object-interacted)
  (:domain fdc-home)
  (:category interaction)
  (:tags memory single-goal)
  (:version 1)
  (:description "Go to any object the robot interacted with.")
  (:parameters)
  (:constraints (exists (?x - movable) (interacted ?x)))
  (:goal (exists (?x - movable) (and (interacted ?x) (robot-at-object ?x))))
  (:instruction
    "Navigate to any object that you interacted with yesterday."
    "Go to one of the objects you picked up yesterday."
    "Head to anything you handled yesterday.")
  (:ambiguity reject))

; One item of the category was interacted with and at least one was not: the instruction
; singles it out only through the robot's memory.
(define (template interaction-category-interacted)
  (:domain fdc-home)
  (:category interaction)
  (:tags memory single-goal)
  (:version 1)
  (:description "Go to the one item of a category the robot interacted with.")
  (:parameters ?c - category)
  (:constraints (and
    (exactly 1 (?x - movable) (and (category-of ?x ?c) (interacted ?x)))
    (exists (?x - movable) (and (category-of ?x ?c) (not (interacted ?x))))))
  (:goal (exists (?x - movable)
    (and (category-of ?x ?c) (interacted ?x) (robot-at-object ?x))))
  (:instruction
    "Navigate to the {{ c }} that you interacted with yesterday."
    "Go to the {{ c }} you picked up yesterday."
    "Head to the {{ c }} you handled yesterday.")
  (:ambiguity reject))

(define (template interaction-category-not-interacted)
  (:domain fdc-home)
  (:category interaction)
  (:tags memory single-goal)
  (:version 1)
  (:description "Go to an item of a category that the robot did not interact with, when it did interact with another.")
  (:parameters ?c - category)
  (:constraints (and
    (exists (?x - movable) (and (category-of ?x ?c) (interacted ?x)))
    (exists (?x - movable) (and (category-of ?x ?c) (not (interacted ?x))))))
  (:goal (exists (?x - movable)
    (and (category-of ?x ?c) (not (interacted ?x)) (robot-at-object ?x))))
  (:instruction
    "Navigate to {{ c | a }} that you did not interact with yesterday."
    "Go to {{ c | a }} that you did not pick up yesterday."
    "Head to {{ c | a }} you left untouched yesterday.")
  (:ambiguity reject))

(define (template interaction-receptacle-interacted)
  (:domain fdc-home)
  (:category interaction)
  (:tags memory single-goal)
  (:version 1)
  (:description "Go to any receptacle the robot picked an item from or put one on.")
  (:parameters)
  (:goal (exists (?s - surface)
    (and
      (exists (?o - movable) (or (picked-from ?o ?s) (placed-on ?o ?s)))
      (robot-at-receptacle ?s))))
  (:instruction
    "Navigate to any receptacle that you interacted with yesterday."
    "Go to a receptacle you picked something up from or put something down on yesterday."
    "Head to any place you lifted something from or set something on yesterday.")
  (:ambiguity reject))

(define (template interaction-receptacle-not-interacted)
  (:domain fdc-home)
  (:category interaction)
  (:tags memory single-goal)
  (:version 1)
  (:description "Go to any receptacle of a piece of furniture the robot did not interact with.")
  (:parameters)
  (:goal (exists (?s - surface)
    (and
      (exists (?f - furniture) (surface-of ?s ?f))
      (not (exists (?o - movable) (or (picked-from ?o ?s) (placed-on ?o ?s))))
      (robot-at-receptacle ?s))))
  (:instruction
    "Navigate to any receptacle that you did not interact with yesterday."
    "Go to a receptacle you neither picked anything up from nor put anything down on yesterday."
    "Head to a place where you neither lifted nor set down anything yesterday.")
  (:ambiguity reject))

; The room holds an item the robot moved, so "not interacted" is a real filter there.
(define (template interaction-object-in-room-not-interacted)
  (:domain fdc-home)
  (:category interaction)
  (:tags memory single-goal)
  (:version 1)
  (:description "Go to an object in a given room that the robot did not interact with.")
  (:parameters ?r - room)
  (:constraints (and
    (exists (?x - movable) (and (interacted ?x) (ended-in-room ?x ?r)))
    (exists (?x - movable) (and (not (interacted ?x)) (ended-in-room ?x ?r)))))
  (:goal (exists (?x - movable)
    (and (not (interacted ?x)) (ended-in-room ?x ?r) (robot-at-object ?x))))
  (:instruction
    "Navigate to any object in {{ r | ref }} that you did not interact with yesterday."
    "Go to an object in {{ r | ref }} that you did not pick up yesterday."
    "Head to something in {{ r | ref }} you left untouched yesterday.")
  (:ambiguity reject))
