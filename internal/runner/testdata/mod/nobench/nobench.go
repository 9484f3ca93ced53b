package nobench

func F() {}
