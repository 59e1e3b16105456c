; Memory and manipulation together: tasks about the robot's experience that are done by
; moving items, not answered by returning somewhere. The history predicates are decided
; when the task is compiled (which object, which surface); the goal is a fluent atom
; over the world the experience left behind, where the task starts (`fdc validate
; --solve` plans from there, the oracle acts there, `fdc evaluate` scores the trace with
; the manipulation metrics). The destination is a surface of a piece of furniture (the
; surfaces the robot places on), and the goal must not already hold where the task
; starts: an item put back where it was picked from is dropped as already true.
(define (template mm-first-moved-back)
  (:domain fdc-home)
  (:category memory-manipulation)
  (:tags memory manipulation single-goal)
  (:version 1)
  (:description "Put the first object the robot moved back on the surface it picked it from.")
  (:parameters ?o - movable ?s - surface ?f - furniture)
  (:constraints (and
    (= (interaction-order ?o) 1)
    (picked-from ?o ?s)
    (surface-of ?s ?f)
    (exactly 1 (?x - surface) (picked-from ?o ?x))))
  (:goal (on ?o ?s))
  (:instruction
    "Put the first object you moved yesterday back where you found it."
    "Return the object you picked up first yesterday to the place you took it from."
    "Take the first thing you moved yesterday back to the surface it came from.")
  (:ambiguity reject))

(define (template mm-last-placed-back)
  (:domain fdc-home)
  (:category memory-manipulation)
  (:tags memory manipulation single-goal)
  (:version 1)
  (:description "Put the item the robot placed last back on the surface it was picked from.")
  (:parameters ?o - movable ?s - surface ?f - furniture)
  (:constraints (and
    (argmax ?o (?x - movable) (interaction-order ?x) (interacted ?x))
    (at-least 2 (?x - movable) (interacted ?x))
    (picked-from ?o ?s)
    (surface-of ?s ?f)
    (exactly 1 (?x - surface) (picked-from ?o ?x))))
  (:goal (on ?o ?s))
  (:instruction
    "Put the last item you placed yesterday back on the surface it was picked from."
    "Return the object you put down last yesterday to where you picked it up."
    "Move the last thing you set down yesterday back to where it was before.")
  (:ambiguity reject))

(define (template mm-longest-to-counter)
  (:domain fdc-home)
  (:category memory-manipulation)
  (:tags memory manipulation single-goal)
  (:version 1)
  (:description "Bring the item the robot held longest to a counter in the kitchen.")
  (:parameters ?o - movable ?r - kitchen)
  (:constraints (and
    (interacted ?o)
    (not
      (exists (?x - movable)
        (and
          (not (= ?x ?o))
          (interacted ?x)
          (>= (interaction-duration ?x) (interaction-duration ?o)))))
    (exists (?f - counter) (furniture-in-room ?f ?r))))
  (:goal (exists (?f - counter ?s - surface)
    (and (furniture-in-room ?f ?r) (surface-of ?s ?f) (on ?o ?s))))
  (:instruction
    "Bring the item you interacted with longest yesterday to the kitchen counter."
    "Put the object you held the longest yesterday on a counter in the {{ r }}."
    "Take the thing you spent the most time with yesterday to the kitchen counter.")
  (:ambiguity reject))

(define (template mm-category-back-to-room)
  (:domain fdc-home)
  (:category memory-manipulation)
  (:tags memory manipulation single-goal)
  (:version 1)
  (:description "Take the one item of a category the robot moved back to the room it was in before.")
  (:parameters ?c - category ?o - movable ?r - room)
  (:constraints (and
    (category-of ?o ?c)
    (interacted ?o)
    (exactly 1 (?x - movable) (and (category-of ?x ?c) (interacted ?x)))
    (started-in-room ?o ?r)))
  (:goal (in-room ?o ?r))
  (:instruction
    "Take the {{ c }} you moved yesterday back to the room it was in before."
    "Put the {{ c }} you picked up yesterday back in the room you found it in."
    "Return the {{ c }} you moved yesterday to its room.")
  (:ambiguity reject))
