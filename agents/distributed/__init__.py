"""Running games and trainings beyond this process: Ray, locally or on a cluster."""
