; FindingDory's ordered revisit tasks: every target, in a given order (reaching a later
; one first fails the task). The original lists the order as ordinals ("The order to
; revisit them is: first, third, ..."); here they are spelled by `ordinal_word`, right
; past the tenth. At least two targets.
(define (template ordered-revisit-objects)
  (:domain fdc-home)
  (:category ordered-revisit)
  (:tags memory multi-goal)
  (:version 1)
  (:description "Visit every object the robot interacted with, in the order it did.")
  (:parameters)
  (:constraints (at-least 2 (?x - movable) (interacted ?x)))
  (:goal (ordered-targets (?x - movable)
    (interaction-order ?x)
    (interacted ?x)
    (robot-at-object ?x)))
  (:instruction
    "Revisit all the objects you interacted with yesterday in specific order. The order to revisit them is: {{ range(1, n_targets + 1) | map('ordinal_word') | join(', ') }}."
    "Go back to the {{ n_targets | number_word }} objects you picked up yesterday, in the order you picked them up."
    "Visit again, in the order you handled them, every object you lifted yesterday.")
  (:ambiguity reject))

(define (template ordered-revisit-objects-reversed)
  (:domain fdc-home)
  (:category ordered-revisit)
  (:tags memory multi-goal)
  (:version 1)
  (:description "Visit every object the robot interacted with, last one first.")
  (:parameters)
  (:constraints (at-least 2 (?x - movable) (interacted ?x)))
  (:goal (ordered-targets (?x - movable)
    (- (interaction-order ?x))
    (interacted ?x)
    (robot-at-object ?x)))
  (:instruction
    "Revisit all the objects you interacted with yesterday in specific order. The order to revisit them is: {{ range(n_targets, 0, -1) | map('ordinal_word') | join(', ') }}."
    "Go back to the {{ n_targets | number_word }} objects you picked up yesterday, starting with the last one and ending with the first."
    "Visit again every object you lifted yesterday, in the reverse of the order you handled them.")
  (:ambiguity reject))

(define (template ordered-revisit-start-receptacles)
  (:domain fdc-home)
  (:category ordered-revisit)
  (:tags memory multi-goal)
  (:version 1)
  (:description "Visit every receptacle the robot picked an item from, in the order it first did.")
  (:parameters)
  (:constraints (at-least 2 (?s - surface) (exists (?o - movable) (picked-from ?o ?s))))
  (:goal (ordered-targets (?s - surface)
    (pick-order ?s)
    (exists (?o - movable) (picked-from ?o ?s))
    (robot-at-receptacle ?s)))
  (:instruction
    "Revisit all the receptacles you picked objects from yesterday, in the order you picked them."
    "Go back to the {{ n_targets | number_word }} receptacles you took objects from yesterday, in the order you first took something from each."
    "Visit again, in the order you used them, the places you lifted objects from yesterday.")
  (:ambiguity reject))

(define (template ordered-revisit-goal-receptacles)
  (:domain fdc-home)
  (:category ordered-revisit)
  (:tags memory multi-goal)
  (:version 1)
  (:description "Visit every receptacle the robot put an item on, in the order it first did.")
  (:parameters)
  (:constraints (at-least 2 (?s - surface) (exists (?o - movable) (placed-on ?o ?s))))
  (:goal (ordered-targets (?s - surface)
    (place-order ?s)
    (exists (?o - movable) (placed-on ?o ?s))
    (robot-at-receptacle ?s)))
  (:instruction
    "Revisit all the receptacles you placed objects on yesterday, in the order you placed them."
    "Go back to the {{ n_targets | number_word }} receptacles you put objects down on yesterday, in the order you first put something on each."
    "Visit again, in the order you used them, the places where you set objects down yesterday.")
  (:ambiguity reject))

(define (template ordered-revisit-rooms)
  (:domain fdc-home)
  (:category ordered-revisit)
  (:tags memory multi-goal)
  (:version 1)
  (:description "Visit every room the robot was in, in the order it first entered them.")
  (:parameters)
  (:constraints (at-least 2 (?r - room) (visited ?r)))
  (:goal (ordered-targets (?r - room) (visit-order ?r) (visited ?r) (robot-in-room ?r)))
  (:instruction
    "Revisit all the rooms you visited yesterday, in the order you first entered them."
    "Go back to the {{ n_targets | number_word }} rooms you were in yesterday, in the order you first went into each."
    "Visit again, in the order you first reached them, every room you were in yesterday.")
  (:ambiguity reject))
