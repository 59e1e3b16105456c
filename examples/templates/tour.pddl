; Example templates over fdc's home domain: one of each kind of goal the language has.
; `fdc check examples/templates` checks them against the built-in domain `fdc-home`.

(define (template object-after)
  (:domain fdc-home)
  (:category interaction-order)
  (:tags memory single-goal)
  (:parameters ?prev ?o - movable)
  (:constraints (and (interacted ?prev) (next-interaction ?prev ?o)))
  (:goal (robot-at-object ?o))
  (:instruction
    "Navigate to the object you interacted with right after the {{ prev | ref }}."
    "Go to the item you handled just after the {{ prev | ref }}.")
  (:ambiguity reject))

(define (template longest-interaction)
  (:domain fdc-home)
  (:category duration)
  (:tags memory single-goal)
  (:parameters ?o - movable)
  ; Ties are reported by the binder, never broken silently.
  (:constraints (argmax ?o (?x - movable) (interaction-duration ?x) (interacted ?x)))
  (:goal (robot-at-object ?o))
  (:instruction "Navigate to the object you spent the longest time with."))

(define (template revisit-in-order)
  (:domain fdc-home)
  (:category ordered-revisit)
  (:tags memory multi-goal)
  (:parameters)
  (:goal
    (ordered-targets (?x - movable) (interaction-order ?x) (interacted ?x) (robot-at-object ?x)))
  (:instruction "Revisit every object you interacted with, in the order you picked them up."))

(define (template fruit-between)
  (:domain fdc-home)
  (:category between)
  (:level 1)
  (:tags manipulation process)
  (:parameters ?o - fruit ?a ?b - movable ?s - surface)
  (:constraints (and (on ?a ?s) (on ?b ?s)))
  (:goal (and (on ?o ?s) (between ?o ?a ?b)))
  (:instruction "Move {{ o | ref }} between {{ a | ref }} and {{ b | ref }}.")
  (:ambiguity widen))

(define (template two-steps)
  (:domain fdc-home)
  (:category sequence)
  (:level 3)
  (:parameters ?o1 ?o2 - movable ?s1 ?s2 - surface)
  (:goal (then (on ?o1 ?s1) (on ?o2 ?s2)))
  (:instruction "Move {{ o1 | ref }} to {{ s1 | ref }}, then move {{ o2 | ref }} to {{ s2 | ref }}."))

(define (template mugs-on-counter)
  (:domain fdc-home)
  (:category outcome)
  (:level 4)
  (:parameters ?s - surface)
  (:goal (and (forall (?m - mug) (on ?m ?s)) (at-least 1 (?m - mug) (on ?m ?s))))
  (:instruction "Put all the mugs on {{ s | ref }}."))
