module example.com/explained

go 1.26
