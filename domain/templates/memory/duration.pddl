; FindingDory's duration tasks: how long the robot took to move an object (pick to place,
; in minutes: `interaction-duration`). The original breaks ties silently and says
; "seconds" for a number of minutes; here durations within half a minute
; (`tie_duration_min`) are a tie and reject the binding, and a given duration is a
; `minutes` value from the log, written by the `duration` filter ("3 minutes").
(define (template duration-longest)
  (:domain fdc-home)
  (:category duration)
  (:tags memory single-goal)
  (:version 1)
  (:description "Go to the object the robot took the longest to move.")
  (:parameters ?o - movable)
  (:constraints (and
    (interacted ?o)
    (not
      (exists (?x - movable)
        (and
          (interacted ?x)
          (not (= ?x ?o))
          (< (- (interaction-duration ?o) (interaction-duration ?x)) 0.5))))
    (argmax ?o (?x - movable) (interaction-duration ?x) (interacted ?x))))
  (:goal (robot-at-object ?o))
  (:instruction
    "Navigate to the object which took the longest time to rearrange."
    "Go to the object you spent the most time moving yesterday."
    "Find the thing that took you longest to rearrange yesterday.")
  (:ambiguity reject))

(define (template duration-shortest)
  (:domain fdc-home)
  (:category duration)
  (:tags memory single-goal)
  (:version 1)
  (:description "Go to the object the robot took the shortest time to move.")
  (:parameters ?o - movable)
  (:constraints (and
    (interacted ?o)
    (not
      (exists (?x - movable)
        (and
          (interacted ?x)
          (not (= ?x ?o))
          (< (- (interaction-duration ?x) (interaction-duration ?o)) 0.5))))
    (argmin ?o (?x - movable) (interaction-duration ?x) (interacted ?x))))
  (:goal (robot-at-object ?o))
  (:instruction
    "Navigate to the object which took the shortest time to rearrange."
    "Go to the object you spent the least time moving yesterday."
    "Find the thing that took you least time to rearrange yesterday.")
  (:ambiguity reject))

(define (template duration-given)
  (:domain fdc-home)
  (:category duration)
  (:tags memory single-goal)
  (:version 1)
  (:description "Go to the one object the robot took a given number of minutes to move.")
  (:parameters ?d - minutes ?o - movable)
  (:constraints (and
    (took-minutes ?o ?d)
    (not
      (exists (?x - movable)
        (and
          (interacted ?x)
          (not (= ?x ?o))
          (or
            (took-minutes ?x ?d)
            (and
              (< (- (interaction-duration ?x) (interaction-duration ?o)) 0.5)
              (< (- (interaction-duration ?o) (interaction-duration ?x)) 0.5))))))))
  (:goal (robot-at-object ?o))
  (:instruction
    "Navigate to the object which took {{ d | duration }} to rearrange."
    "Go to the object you spent {{ d | duration }} moving yesterday."
    "Find the thing whose rearranging took you {{ d | duration }} yesterday.")
  (:ambiguity reject))
