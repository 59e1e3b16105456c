; FindingDory's room visitation tasks: where the robot started, the room it entered second
; and (new in fdc) the last room it entered for the first time, where it spent the most
; (and, new in fdc, the least) time, and the rooms an item started and ended in.
; FindingDory also asks for a room the robot did not visit: the robot is in such a room
; at no frame of its experience, so no frame answers it (FindingDory's `[-1]`); its
; opposite, any visited room, is in most frames, so a random frame answers it. Times
; within half a minute (`tie_duration_min`) are a tie: the binding is rejected. An item is
; named by its category when it is the only item of that category the robot moved, so
; its description never gives the room away.
(define (template room-initial)
  (:domain fdc-home)
  (:category room-visitation)
  (:tags memory single-goal)
  (:version 1)
  (:description "Go to the room the robot started its experience in.")
  (:parameters ?r - room)
  (:constraints (and (initial-room ?r) (not (final-room ?r))))
  (:goal (robot-in-room ?r))
  (:instruction
    "Navigate to the room where you started yesterday."
    "Go back to the room you were in when your day began yesterday."
    "Return to the room your day started in yesterday.")
  (:ambiguity reject))

(define (template room-second-visited)
  (:domain fdc-home)
  (:category room-visitation)
  (:tags memory single-goal)
  (:version 1)
  (:description "Go to the second room the robot entered.")
  (:parameters ?r - room)
  (:constraints (= (visit-order ?r) 2))
  (:goal (robot-in-room ?r))
  (:instruction
    "Navigate to the {{ 2 | ordinal_word }} room you visited yesterday."
    "Go to the room you entered right after the one you started in yesterday."
    "Find the second room you entered yesterday.")
  (:ambiguity reject))

; The third room or later, so never the second one `room-second-visited` asks for.
(define (template room-last-first-visited)
  (:domain fdc-home)
  (:category room-visitation)
  (:tags memory single-goal)
  (:version 1)
  (:description "Go to the last room the robot entered for the first time, the third or later.")
  (:parameters ?r - room)
  (:constraints (and
    (visited ?r)
    (> (visit-order ?r) 2)
    (not (final-room ?r))
    (argmax ?r (?x - room) (visit-order ?x) (visited ?x))))
  (:goal (robot-in-room ?r))
  (:instruction
    "Navigate to the last new room you entered yesterday."
    "Of the rooms you went into yesterday, go to the one you first entered last."
    "Find the room you reached for the first time last of all yesterday.")
  (:ambiguity reject))

(define (template room-most-time)
  (:domain fdc-home)
  (:category room-visitation)
  (:tags memory single-goal)
  (:version 1)
  (:description "Go to the room the robot spent the most time in.")
  (:parameters ?r - room)
  (:constraints (and
    (visited ?r)
    (not
      (exists (?x - room)
        (and (visited ?x) (not (= ?x ?r)) (< (- (time-in-room ?r) (time-in-room ?x)) 0.5))))
    (argmax ?r (?x - room) (time-in-room ?x) (visited ?x))))
  (:goal (robot-in-room ?r))
  (:instruction
    "Navigate to the room where you spent the most time yesterday."
    "Go to the room you stayed in the longest yesterday."
    "Find the room you spent the longest time in yesterday.")
  (:ambiguity reject))

(define (template room-least-time)
  (:domain fdc-home)
  (:category room-visitation)
  (:tags memory single-goal)
  (:version 1)
  (:description "Go to the visited room the robot spent the least time in.")
  (:parameters ?r - room)
  (:constraints (and
    (visited ?r)
    (not
      (exists (?x - room)
        (and (visited ?x) (not (= ?x ?r)) (< (- (time-in-room ?x) (time-in-room ?r)) 0.5))))
    (argmin ?r (?x - room) (time-in-room ?x) (visited ?x))))
  (:goal (robot-in-room ?r))
  (:instruction
    "Navigate to the room where you spent the least time yesterday."
    "Go to the room you visited yesterday but stayed in the shortest."
    "Find the room you spent the shortest time in yesterday.")
  (:ambiguity reject))

(define (template room-object-started)
  (:domain fdc-home)
  (:category room-visitation)
  (:tags memory single-goal)
  (:version 1)
  (:description "Go to the room an item started in before the robot moved it to another room.")
  (:parameters ?c - category ?o - movable ?r - room)
  (:constraints (and
    (category-of ?o ?c)
    (interacted ?o)
    (exactly 1 (?x - movable) (and (category-of ?x ?c) (interacted ?x)))
    (started-in-room ?o ?r)
    (not (ended-in-room ?o ?r))))
  (:goal (robot-in-room ?r))
  (:instruction
    "Navigate to the room where the {{ c }} was before you moved it yesterday."
    "Go to the room you took the {{ c }} from yesterday."
    "Find the room the {{ c }} you moved started out in yesterday.")
  (:ambiguity reject))

(define (template room-object-ended)
  (:domain fdc-home)
  (:category room-visitation)
  (:tags memory single-goal)
  (:version 1)
  (:description "Go to the room the robot moved an item to from another room.")
  (:parameters ?c - category ?o - movable ?r - room)
  (:constraints (and
    (category-of ?o ?c)
    (interacted ?o)
    (exactly 1 (?x - movable) (and (category-of ?x ?c) (interacted ?x)))
    (ended-in-room ?o ?r)
    (not (started-in-room ?o ?r))))
  (:goal (robot-in-room ?r))
  (:instruction
    "Navigate to the room where you put the {{ c }} yesterday."
    "Go to the room you carried the {{ c }} to yesterday."
    "Find the room where the {{ c }} you moved ended up yesterday.")
  (:ambiguity reject))
