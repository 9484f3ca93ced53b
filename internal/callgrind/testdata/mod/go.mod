module example.com/cgmod

go 1.26
