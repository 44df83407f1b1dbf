module github.com/tsys-go/tsys

go 1.26
