module example.com/stamped

go 1.26
