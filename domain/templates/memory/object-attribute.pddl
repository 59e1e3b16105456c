; FindingDory's object attribute tasks: an item picked out by an attribute and by whether
; the robot interacted with it. Some item with the attribute is on the other side of the
; line, so the attribute alone never answers. Materials print without the domain's
; `-material` suffix (`glass-material` reads "glass").
(define (template attribute-color-interacted)
  (:domain fdc-home)
  (:category object-attribute)
  (:tags memory single-goal)
  (:version 1)
  (:description "Go to an item of a color that the robot interacted with.")
  (:parameters ?k - color)
  (:constraints (and
    (exists (?x - movable) (and (has-color ?x ?k) (interacted ?x)))
    (exists (?x - movable) (and (has-color ?x ?k) (not (interacted ?x))))))
  (:goal (exists (?x - movable)
    (and (has-color ?x ?k) (interacted ?x) (robot-at-object ?x))))
  (:instruction
    "Navigate back to {{ k | a }} colored object that you interacted with yesterday."
    "Go back to {{ k | a }} thing that you picked up yesterday."
    "Head to something {{ k }} that you handled yesterday.")
  (:ambiguity reject))

(define (template attribute-color-not-interacted)
  (:domain fdc-home)
  (:category object-attribute)
  (:tags memory single-goal)
  (:version 1)
  (:description "Go to an item of a color that the robot did not interact with.")
  (:parameters ?k - color)
  (:constraints (and
    (exists (?x - movable) (and (has-color ?x ?k) (interacted ?x)))
    (exists (?x - movable) (and (has-color ?x ?k) (not (interacted ?x))))))
  (:goal (exists (?x - movable)
    (and (has-color ?x ?k) (not (interacted ?x)) (robot-at-object ?x))))
  (:instruction
    "Navigate to {{ k | a }} colored object that you did not interact with yesterday."
    "Go to {{ k | a }} thing that you did not pick up yesterday."
    "Head to something {{ k }} that you left untouched yesterday.")
  (:ambiguity reject))

(define (template attribute-material-interacted)
  (:domain fdc-home)
  (:category object-attribute)
  (:tags memory single-goal)
  (:version 1)
  (:description "Go to an item of a material that the robot interacted with.")
  (:parameters ?m - material)
  (:constraints (and
    (exists (?x - movable) (and (has-material ?x ?m) (interacted ?x)))
    (exists (?x - movable) (and (has-material ?x ?m) (not (interacted ?x))))))
  (:goal (exists (?x - movable)
    (and (has-material ?x ?m) (interacted ?x) (robot-at-object ?x))))
  (:instruction
    "Navigate back to an object made of {{ m | replace(' material', '') }} that you interacted with yesterday."
    "Go back to {{ m | replace(' material', '') | a }} thing that you picked up yesterday."
    "Head to something made of {{ m | replace(' material', '') }} that you handled yesterday.")
  (:ambiguity reject))

(define (template attribute-material-not-interacted)
  (:domain fdc-home)
  (:category object-attribute)
  (:tags memory single-goal)
  (:version 1)
  (:description "Go to an item of a material that the robot did not interact with.")
  (:parameters ?m - material)
  (:constraints (and
    (exists (?x - movable) (and (has-material ?x ?m) (interacted ?x)))
    (exists (?x - movable) (and (has-material ?x ?m) (not (interacted ?x))))))
  (:goal (exists (?x - movable)
    (and (has-material ?x ?m) (not (interacted ?x)) (robot-at-object ?x))))
  (:instruction
    "Navigate to an object made of {{ m | replace(' material', '') }} that you did not interact with yesterday."
    "Go to {{ m | replace(' material', '') | a }} thing that you did not pick up yesterday."
    "Head to something made of {{ m | replace(' material', '') }} that you left untouched yesterday.")
  (:ambiguity reject))

; Color and category together: another item of the same color and category stayed put.
(define (template attribute-color-category-interacted)
  (:domain fdc-home)
  (:category object-attribute)
  (:tags memory single-goal)
  (:version 1)
  (:description "Go to an item of a color and category that the robot interacted with.")
  (:parameters ?k - color ?c - category)
  (:constraints (and
    (exists (?x - movable) (and (category-of ?x ?c) (has-color ?x ?k) (interacted ?x)))
    (exists (?x - movable)
      (and (category-of ?x ?c) (has-color ?x ?k) (not (interacted ?x))))))
  (:goal (exists (?x - movable)
    (and (category-of ?x ?c) (has-color ?x ?k) (interacted ?x) (robot-at-object ?x))))
  (:instruction
    "Navigate back to {{ k | a }} {{ c }} that you interacted with yesterday."
    "Go back to {{ k | a }} {{ c }} that you picked up yesterday."
    "Find {{ k | a }} {{ c }} you handled yesterday and go to it.")
  (:ambiguity reject))

; Shapes have no values in fdc-home yet (no shape constants): this template binds once
; the domain or the scene gives `shape` entities.
(define (template attribute-shape-interacted)
  (:domain fdc-home)
  (:category object-attribute)
  (:tags memory single-goal)
  (:version 1)
  (:description "Go to an item of a shape that the robot interacted with.")
  (:parameters ?h - shape)
  (:constraints (and
    (exists (?x - movable) (and (has-shape ?x ?h) (interacted ?x)))
    (exists (?x - movable) (and (has-shape ?x ?h) (not (interacted ?x))))))
  (:goal (exists (?x - movable)
    (and (has-shape ?x ?h) (interacted ?x) (robot-at-object ?x))))
  (:instruction
    "Navigate back to {{ h | a }} shaped object that you interacted with yesterday."
    "Go back to {{ h | a }} thing that you picked up yesterday."
    "Head to something {{ h }} in shape that you handled yesterday.")
  (:ambiguity reject))
