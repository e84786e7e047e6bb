// Python's repr of floats and strings, as the AST printer and the disassembler show constants.
#include <gtest/gtest.h>

#include <cmath>
#include <limits>

#include "python/python_repr.h"

TEST(PythonRepr, Floats) {
    EXPECT_EQ(eng::python::floatRepr(0.0), "0.0");
    EXPECT_EQ(eng::python::floatRepr(-0.0), "-0.0");
    EXPECT_EQ(eng::python::floatRepr(1.0), "1.0");
    EXPECT_EQ(eng::python::floatRepr(0.1), "0.1");
    EXPECT_EQ(eng::python::floatRepr(2.5), "2.5");
    EXPECT_EQ(eng::python::floatRepr(1.0 / 3.0), "0.3333333333333333");
    EXPECT_EQ(eng::python::floatRepr(123456.789), "123456.789");
    EXPECT_EQ(eng::python::floatRepr(1e15), "1000000000000000.0");
    EXPECT_EQ(eng::python::floatRepr(1e16), "1e+16");
    EXPECT_EQ(eng::python::floatRepr(1.5e16), "1.5e+16");
    EXPECT_EQ(eng::python::floatRepr(0.0001), "0.0001");
    EXPECT_EQ(eng::python::floatRepr(0.00001), "1e-05");
    EXPECT_EQ(eng::python::floatRepr(-2.5e-7), "-2.5e-07");
    EXPECT_EQ(eng::python::floatRepr(1.7976931348623157e308), "1.7976931348623157e+308");
    EXPECT_EQ(eng::python::floatRepr(std::numeric_limits<double>::infinity()), "inf");
    EXPECT_EQ(eng::python::floatRepr(-std::numeric_limits<double>::infinity()), "-inf");
    EXPECT_EQ(eng::python::floatRepr(std::nan("")), "nan");
}

TEST(PythonRepr, Strings) {
    EXPECT_EQ(eng::python::stringRepr("abc"), "'abc'");
    EXPECT_EQ(eng::python::stringRepr("it's"), "\"it's\"");
    EXPECT_EQ(eng::python::stringRepr("a'b\"c"), "'a\\'b\"c'");
    EXPECT_EQ(eng::python::stringRepr("tab\there\nnl\\"), "'tab\\there\\nnl\\\\'");
    EXPECT_EQ(eng::python::stringRepr(std::string("\x01\x7f", 2)), "'\\x01\\x7f'");
    EXPECT_EQ(eng::python::stringRepr("é"), "'é'");
    EXPECT_EQ(eng::python::stringRepr(""), "''");
}
