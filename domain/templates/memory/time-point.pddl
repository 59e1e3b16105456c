; FindingDory's time point tasks: what the robot was doing at a clock time. Clock times
; are `clock-time` values from the log (the midpoint of each interaction), written
; zero-padded by the `clock` filter ("06:35", where the original wrote "6:35"). A minute
; in which the robot touched two objects is rejected.
(define (template time-object-at)
  (:domain fdc-home)
  (:category time-point)
  (:tags memory single-goal)
  (:version 1)
  (:description "Go to the object the robot was interacting with at a clock time.")
  (:parameters ?t - clock-time ?o - movable)
  (:constraints (and
    (interacting-at ?o ?t)
    (not (exists (?x - movable) (and (not (= ?x ?o)) (interacting-at ?x ?t))))))
  (:goal (robot-at-object ?o))
  (:instruction
    "Navigate to the object that you interacted with at {{ t | clock }} yesterday."
    "Go to the object you were carrying at {{ t | clock }} yesterday."
    "Find what you held at {{ t | clock }} yesterday.")
  (:ambiguity reject))

(define (template time-start-receptacle-at)
  (:domain fdc-home)
  (:category time-point)
  (:tags memory single-goal)
  (:version 1)
  (:description "Go to the receptacle the robot took the object it held at a clock time from.")
  (:parameters ?t - clock-time ?o - movable ?s - surface)
  (:constraints (and
    (interacting-at ?o ?t)
    (not (exists (?x - movable) (and (not (= ?x ?o)) (interacting-at ?x ?t))))
    (picked-from ?o ?s)
    (exactly 1 (?x - surface) (picked-from ?o ?x))
    (not (placed-on ?o ?s))))
  (:goal (robot-at-receptacle ?s))
  (:instruction
    "Navigate to the receptacle from which you picked up the object you interacted with at {{ t | clock }} yesterday."
    "Go to where you picked up the object you were carrying at {{ t | clock }} yesterday."
    "Return to the spot where you lifted what you held at {{ t | clock }} yesterday.")
  (:ambiguity reject))

(define (template time-goal-receptacle-at)
  (:domain fdc-home)
  (:category time-point)
  (:tags memory single-goal)
  (:version 1)
  (:description "Go to the receptacle the robot put the object it held at a clock time on.")
  (:parameters ?t - clock-time ?o - movable ?s - surface)
  (:constraints (and
    (interacting-at ?o ?t)
    (not (exists (?x - movable) (and (not (= ?x ?o)) (interacting-at ?x ?t))))
    (placed-on ?o ?s)
    (exactly 1 (?x - surface) (placed-on ?o ?x))))
  (:goal (robot-at-receptacle ?s))
  (:instruction
    "Navigate to the receptacle you placed the object on that you interacted with at {{ t | clock }} yesterday."
    "Go to where you put down the object you were carrying at {{ t | clock }} yesterday."
    "Return to the spot where you set down what you held at {{ t | clock }} yesterday.")
  (:ambiguity reject))
