package sub

// Nothing is here.
func Nothing() {}
