; FindingDory's spatial relationship tasks: the interacted object, or the receptacle in a
; given role, that is farthest from where the robot stands when the task begins (the end
; of its experience), and fdc's counterpart the original lacks: the closest. Distances
; are walking distances (`distance-from-start`). A runner-up within 0.1 m
; (`tie_distance_m`) is a tie no one could see: the binding is rejected. The role comes
; first and the margin before the arg-extreme (the binder decides conjuncts in order), so
; most candidates fail early.
(define (template spatial-farthest-interacted-object)
  (:domain fdc-home)
  (:category spatial-relationship)
  (:tags memory single-goal)
  (:version 1)
  (:description "Go to the interacted item that is farthest from the robot.")
  (:parameters ?o - movable)
  (:constraints (and
    (interacted ?o)
    (not
      (exists (?x - movable)
        (and
          (not (= ?x ?o))
          (< (- (distance-from-start ?o) (distance-from-start ?x)) 0.1)
          (interacted ?x))))
    (argmax ?o (?x - movable) (distance-from-start ?x) (interacted ?x))))
  (:goal (robot-at-object ?o))
  (:instruction
    "Navigate to the object you interacted with which is the farthest from your current location."
    "Go to the object you picked up yesterday that is now farthest from you."
    "Of the objects you handled yesterday, head to the most distant one.")
  (:ambiguity reject))

(define (template spatial-farthest-start-receptacle)
  (:domain fdc-home)
  (:category spatial-relationship)
  (:tags memory single-goal)
  (:version 1)
  (:description "Go to the receptacle the robot picked an item from that is farthest from the robot.")
  (:parameters ?s - surface)
  (:constraints (and
    (exists (?y - movable) (picked-from ?y ?s))
    (not
      (exists (?x - surface)
        (and
          (not (= ?x ?s))
          (< (- (distance-from-start ?s) (distance-from-start ?x)) 0.1)
          (exists (?y - movable) (picked-from ?y ?x)))))
    (argmax ?s (?x - surface)
      (distance-from-start ?x)
      (exists (?y - movable) (picked-from ?y ?x)))))
  (:goal (robot-at-receptacle ?s))
  (:instruction
    "Navigate to the receptacle you picked an object from which is the farthest from your current location."
    "Go to the receptacle you took an object from yesterday that is farthest from you."
    "Of the places you lifted objects from yesterday, head to the most distant one.")
  (:ambiguity reject))

(define (template spatial-farthest-goal-receptacle)
  (:domain fdc-home)
  (:category spatial-relationship)
  (:tags memory single-goal)
  (:version 1)
  (:description "Go to the receptacle the robot put an item on that is farthest from the robot.")
  (:parameters ?s - surface)
  (:constraints (and
    (exists (?y - movable) (placed-on ?y ?s))
    (not
      (exists (?x - surface)
        (and
          (not (= ?x ?s))
          (< (- (distance-from-start ?s) (distance-from-start ?x)) 0.1)
          (exists (?y - movable) (placed-on ?y ?x)))))
    (argmax ?s (?x - surface)
      (distance-from-start ?x)
      (exists (?y - movable) (placed-on ?y ?x)))))
  (:goal (robot-at-receptacle ?s))
  (:instruction
    "Navigate to the receptacle you placed an object on which is the farthest from your current location."
    "Go to the receptacle you put an object down on yesterday that is farthest from you."
    "Of the places you set objects on yesterday, head to the most distant one.")
  (:ambiguity reject))

(define (template spatial-farthest-interacted-receptacle)
  (:domain fdc-home)
  (:category spatial-relationship)
  (:tags memory single-goal)
  (:version 1)
  (:description "Go to the receptacle the robot interacted with that is farthest from the robot.")
  (:parameters ?s - surface)
  (:constraints (and
    (exists (?y - movable) (or (picked-from ?y ?s) (placed-on ?y ?s)))
    (not
      (exists (?x - surface)
        (and
          (not (= ?x ?s))
          (< (- (distance-from-start ?s) (distance-from-start ?x)) 0.1)
          (exists (?y - movable) (or (picked-from ?y ?x) (placed-on ?y ?x))))))
    (argmax ?s (?x - surface)
      (distance-from-start ?x)
      (exists (?y - movable) (or (picked-from ?y ?x) (placed-on ?y ?x))))))
  (:goal (robot-at-receptacle ?s))
  (:instruction
    "Navigate to the receptacle you interacted with which is the farthest from your current location."
    "Go to the receptacle you picked something up from or put something down on yesterday that is farthest from you."
    "Of the places you lifted objects from or set them on yesterday, head to the most distant one.")
  (:ambiguity reject))

(define (template spatial-farthest-non-interacted-receptacle)
  (:domain fdc-home)
  (:category spatial-relationship)
  (:tags memory single-goal)
  (:version 1)
  (:description "Go to the furniture receptacle the robot did not interact with that is farthest from the robot.")
  (:parameters ?s - surface)
  (:constraints (and
    (exists (?f - furniture) (surface-of ?s ?f))
    (not (exists (?y - movable) (or (picked-from ?y ?s) (placed-on ?y ?s))))
    (not
      (exists (?x - surface)
        (and
          (not (= ?x ?s))
          (< (- (distance-from-start ?s) (distance-from-start ?x)) 0.1)
          (exists (?f - furniture) (surface-of ?x ?f))
          (not (exists (?y - movable) (or (picked-from ?y ?x) (placed-on ?y ?x)))))))
    (argmax ?s (?x - surface)
      (distance-from-start ?x)
      (and
        (exists (?f - furniture) (surface-of ?x ?f))
        (not (exists (?y - movable) (or (picked-from ?y ?x) (placed-on ?y ?x))))))))
  (:goal (robot-at-receptacle ?s))
  (:instruction
    "Navigate to the receptacle you did not interact with which is the farthest from your current location."
    "Go to the receptacle you neither picked anything up from nor put anything down on yesterday that is farthest from you."
    "Of the places you left untouched yesterday, head to the most distant one.")
  (:ambiguity reject))

(define (template spatial-closest-interacted-object)
  (:domain fdc-home)
  (:category spatial-relationship)
  (:tags memory single-goal)
  (:version 1)
  (:description "Go to the interacted item that is closest to the robot.")
  (:parameters ?o - movable)
  (:constraints (and
    (interacted ?o)
    (not
      (exists (?x - movable)
        (and
          (not (= ?x ?o))
          (< (- (distance-from-start ?x) (distance-from-start ?o)) 0.1)
          (interacted ?x))))
    (argmin ?o (?x - movable) (distance-from-start ?x) (interacted ?x))))
  (:goal (robot-at-object ?o))
  (:instruction
    "Navigate to the object you interacted with which is the closest to your current location."
    "Go to the object you picked up yesterday that is now closest to you."
    "Of the objects you handled yesterday, head to the nearest one.")
  (:ambiguity reject))

(define (template spatial-closest-start-receptacle)
  (:domain fdc-home)
  (:category spatial-relationship)
  (:tags memory single-goal)
  (:version 1)
  (:description "Go to the receptacle the robot picked an item from that is closest to the robot.")
  (:parameters ?s - surface)
  (:constraints (and
    (exists (?y - movable) (picked-from ?y ?s))
    (not
      (exists (?x - surface)
        (and
          (not (= ?x ?s))
          (< (- (distance-from-start ?x) (distance-from-start ?s)) 0.1)
          (exists (?y - movable) (picked-from ?y ?x)))))
    (argmin ?s (?x - surface)
      (distance-from-start ?x)
      (exists (?y - movable) (picked-from ?y ?x)))))
  (:goal (robot-at-receptacle ?s))
  (:instruction
    "Navigate to the receptacle you picked an object from which is the closest to your current location."
    "Go to the receptacle you took an object from yesterday that is closest to you."
    "Of the places you lifted objects from yesterday, head to the nearest one.")
  (:ambiguity reject))

(define (template spatial-closest-goal-receptacle)
  (:domain fdc-home)
  (:category spatial-relationship)
  (:tags memory single-goal)
  (:version 1)
  (:description "Go to the receptacle the robot put an item on that is closest to the robot.")
  (:parameters ?s - surface)
  (:constraints (and
    (exists (?y - movable) (placed-on ?y ?s))
    (not
      (exists (?x - surface)
        (and
          (not (= ?x ?s))
          (< (- (distance-from-start ?x) (distance-from-start ?s)) 0.1)
          (exists (?y - movable) (placed-on ?y ?x)))))
    (argmin ?s (?x - surface)
      (distance-from-start ?x)
      (exists (?y - movable) (placed-on ?y ?x)))))
  (:goal (robot-at-receptacle ?s))
  (:instruction
    "Navigate to the receptacle you placed an object on which is the closest to your current location."
    "Go to the receptacle you put an object down on yesterday that is closest to you."
    "Of the places you set objects on yesterday, head to the nearest one.")
  (:ambiguity reject))

(define (template spatial-closest-interacted-receptacle)
  (:domain fdc-home)
  (:category spatial-relationship)
  (:tags memory single-goal)
  (:version 1)
  (:description "Go to the receptacle the robot interacted with that is closest to the robot.")
  (:parameters ?s - surface)
  (:constraints (and
    (exists (?y - movable) (or (picked-from ?y ?s) (placed-on ?y ?s)))
    (not
      (exists (?x - surface)
        (and
          (not (= ?x ?s))
          (< (- (distance-from-start ?x) (distance-from-start ?s)) 0.1)
          (exists (?y - movable) (or (picked-from ?y ?x) (placed-on ?y ?x))))))
    (argmin ?s (?x - surface)
      (distance-from-start ?x)
      (exists (?y - movable) (or (picked-from ?y ?x) (placed-on ?y ?x))))))
  (:goal (robot-at-receptacle ?s))
  (:instruction
    "Navigate to the receptacle you interacted with which is the closest to your current location."
    "Go to the receptacle you picked something up from or put something down on yesterday that is closest to you."
    "Of the places you lifted objects from or set them on yesterday, head to the nearest one.")
  (:ambiguity reject))

(define (template spatial-closest-non-interacted-receptacle)
  (:domain fdc-home)
  (:category spatial-relationship)
  (:tags memory single-goal)
  (:version 1)
  (:description "Go to the furniture receptacle the robot did not interact with that is closest to the robot.")
  (:parameters ?s - surface)
  (:constraints (and
    (exists (?f - furniture) (surface-of ?s ?f))
    (not (exists (?y - movable) (or (picked-from ?y ?s) (placed-on ?y ?s))))
    (not
      (exists (?x - surface)
        (and
          (not (= ?x ?s))
          (< (- (distance-from-start ?x) (distance-from-start ?s)) 0.1)
          (exists (?f - furniture) (surface-of ?x ?f))
          (not (exists (?y - movable) (or (picked-from ?y ?x) (placed-on ?y ?x)))))))
    (argmin ?s (?x - surface)
      (distance-from-start ?x)
      (and
        (exists (?f - furniture) (surface-of ?x ?f))
        (not (exists (?y - movable) (or (picked-from ?y ?x) (placed-on ?y ?x))))))))
  (:goal (robot-at-receptacle ?s))
  (:instruction
    "Navigate to the receptacle you did not interact with which is the closest to your current location."
    "Go to the receptacle you neither picked anything up from nor put anything down on yesterday that is closest to you."
    "Of the places you left untouched yesterday, head to the nearest one.")
  (:ambiguity reject))
