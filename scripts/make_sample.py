#!/usr/bin/env python3
"""Deterministic generator for the shipped examrag sample corpus (data/raw/).

Run:  .venv/bin/python scripts/make_sample.py [--out DIR]     (default DIR: data/raw/)
It lives outside data/raw/ so the sample holds only documents: `ingest data/raw` reports every file
as success. With the pinned pymupdf and numpy the output is byte-identical to the shipped files
(fixed metadata dates, no new PDF id, seeded noise); tests/cli/test_sample.py checks that.
Produces (all text is original study material written for this project):
  数据结构复习讲义.pdf                    text PDF: headings, header/footer, ruled table, TOC
  2024年计算机专业基础综合模拟卷_扫描版.pdf  image-only "scanned" exam paper (no text layer)
  2024年计算机专业基础综合模拟卷_参考答案.pdf  text PDF: its answer key and explanations
  操作系统笔记.md                          markdown with headings, table, LaTeX, C code block
  计算机网络笔记.txt                       plain text encoded in GBK
  考试大纲（样例）.md                       our own short syllabus (考纲) for the syllabus map: four subjects,
                                         mixed numbering (一、 (一) 1. 1、), a 考查目标 list to skip
"""
import argparse
import re
from pathlib import Path

import numpy as np
import pymupdf as fitz

SAMPLE_DIR = Path(__file__).resolve().parent.parent / "data" / "raw"
W, H = fitz.paper_size("a4")
CJK = fitz.Font("cjk")  # MuPDF built-in Droid Sans Fallback (subset on save)


def _symbol_font():
    """Built-in Noto Sans Symbols (has ⌈⌉⌊⌋ which the CJK font lacks)."""
    for script in [52] + list(range(200)):
        try:
            f = fitz.Font(script=script)
        except Exception:
            continue
        if f.has_glyph(0x2308):
            return f
    raise RuntimeError("no built-in font with ceiling brackets")


SYM = _symbol_font()
FONTS = {"F0": CJK, "F1": SYM}
META = {"title": "", "author": "examrag sample", "subject": "408 考研样例语料",
        "keywords": "", "creator": "scripts/make_sample.py", "producer": "PyMuPDF",
        "creationDate": "D:20240101000000+08'00'", "modDate": "D:20240101000000+08'00'"}
NO_LINE_START = set("，。、；：？！）》」”’,.;:?!)")


# ---------------------------------------------------------------- text primitives
def runs(text):
    """Split text into (fontname, substring) runs by glyph availability."""
    out = []
    for ch in text:
        fn = "F0" if (CJK.has_glyph(ord(ch)) or ch == " ") else "F1"
        if fn == "F1" and not SYM.has_glyph(ord(ch)):
            raise ValueError(f"no glyph for {ch!r}")
        if out and out[-1][0] == fn:
            out[-1][1] += ch
        else:
            out.append([fn, ch])
    return out


def width(text, size):
    return sum(FONTS[fn].text_length(s, fontsize=size) for fn, s in runs(text))


def draw(page, x, y, text, size, color=(0, 0, 0)):
    for fn, s in runs(text):
        page.insert_text((x, y), s, fontname=fn, fontsize=size, color=color)
        x += FONTS[fn].text_length(s, fontsize=size)


def wrap(text, size, maxw, indent=0.0):
    """Greedy line wrapping: ASCII words stay whole, CJK breaks per character,
    closing punctuation never starts a line (it hangs into the margin)."""
    tokens = re.findall(r"O\((?:[^()]|\([^()]*\))*\)[!-~]*|[!-~]+| |.", text)
    lines, cur, cw, avail = [], "", 0.0, maxw - indent
    for t in tokens:
        tw = width(t, size)
        if cur and cw + tw > avail and t not in NO_LINE_START:
            lines.append(cur.rstrip())
            cur, cw, avail = "", 0.0, maxw
            if t == " ":
                continue
        cur += t
        cw += tw
    if cur.strip():
        lines.append(cur.rstrip())
    return lines


def new_page(doc):
    page = doc.new_page(width=W, height=H)
    for name in FONTS:
        page.insert_font(fontname=name, fontbuffer=FONTS[name].buffer)
    return page


def finish(doc, path, toc=None):
    doc.set_metadata(META)
    if toc:
        doc.set_toc(toc)
    doc.subset_fonts()
    doc.save(path, garbage=4, deflate=True, no_new_id=True)
    doc.close()


# ---------------------------------------------------------------- textbook content
TABLE_7_1 = [
    ["查找方法", "平均查找长度(成功)", "时间复杂度", "存储要求"],
    ["顺序查找", "(n+1)/2", "O(n)", "顺序表或链表，可无序"],
    ["折半查找", "≈log2(n+1)-1", "O(log2 n)", "顺序表，必须有序"],
    ["分块查找", "索引表ASL+块内ASL", "介于两者之间", "块间有序，块内可无序"],
    ["二叉排序树", "与树的形态有关", "O(log2 n)～O(n)", "二叉链表，动态查找"],
]

BOOK = [
    ("h1", "第六章 图"),
    ("h2", "6.1 图的基本概念"),
    ("p", "图G由顶点集V和边集E组成，记为G=(V,E)，其中V必须是非空有限集，E可以为空。若边没有方向，称为无向图，边用圆括号(v,w)表示；若边有方向，称为有向图，有向边也叫弧，用尖括号<v,w>表示，v称为弧尾，w称为弧头。线性表可以是空表，树可以是空树，但图中至少要有一个顶点，这是图在定义上与其他数据结构的一个细小差别。"),
    ("p", "对于含有n个顶点的无向图，边数最多为n(n-1)/2，达到这个上限的称为无向完全图；有向图的弧数最多为n(n-1)，称为有向完全图。顶点的度是与之关联的边的条数，有向图中顶点的度等于入度与出度之和。无论有向图还是无向图，全部顶点的度之和都等于边数的两倍。若无向图中任意两个顶点之间都有路径，则称其为连通图；n个顶点的连通图至少有n-1条边，而n个顶点的图若边数多于n-1，则一定存在回路。"),
    ("h2", "6.2 图的存储结构"),
    ("p", "邻接矩阵用一个n×n的二维数组记录顶点之间的邻接关系，A[i][j]为1表示存在边(vi,vj)，为0表示不存在；对带权图则存放边的权值，不存在的边记为∞。无向图的邻接矩阵是对称矩阵，可以只存储上三角或下三角部分。邻接矩阵的空间复杂度为O(n²)，与边数无关，适合存储稠密图，判断两个顶点之间是否有边只需O(1)时间。"),
    ("p", "邻接表为每个顶点建立一个单链表，链表中的结点表示依附于该顶点的边（有向图中为以该顶点为尾的弧），所有链表的头指针放在一个顶点表中。无向图的邻接表需要2e个边结点，有向图需要e个，因此空间复杂度为O(n+e)，适合稀疏图。邻接表中求顶点的出度很方便，求入度却要遍历整个表，为此可以另建逆邻接表，或者采用十字链表；对于无向图，邻接多重表让每条边只用一个结点表示，便于标记和删除边。同一个图的邻接矩阵表示是唯一的，而邻接表表示不唯一，因为链表中边结点的次序可以任意。"),
    ("h2", "6.3 图的遍历"),
    ("p", "广度优先搜索(BFS)类似于树的层序遍历：从起始顶点v出发，先访问v，再依次访问v的所有未被访问过的邻接点，然后按这些邻接点被访问的先后次序继续访问它们的邻接点，直到所有能到达的顶点都被访问为止。算法需要借助一个辅助队列，并用visited数组标记每个顶点是否已被访问，防止重复访问。对于非带权图，BFS可以求出从起点到其余各顶点的最少边数，即单源最短路径。"),
    ("p", "深度优先搜索(DFS)类似于树的先序遍历：访问起始顶点后，选择它的一个未被访问的邻接点继续深入，当某个顶点的所有邻接点都已访问过时，退回到上一个顶点继续搜索。DFS通常用递归实现，递归工作栈的深度最大为n，所以空间复杂度为O(n)。无论BFS还是DFS，采用邻接表存储时时间复杂度为O(n+e)，采用邻接矩阵存储时为O(n²)。对非连通图，需要对每个尚未访问的顶点再调用一次遍历算法，调用次数正好等于连通分量的个数。"),
    ("h2", "6.4 图的应用"),
    ("p", "最小生成树是带权连通无向图中边的权值之和最小的生成树，它包含全部n个顶点和n-1条边。Prim算法从一个顶点开始，每次选择连接已选顶点集合与未选顶点集合的最小权边，时间复杂度为O(n²)，与边数无关，适合稠密图；Kruskal算法按权值从小到大依次考察每条边，只要该边不会与已选的边构成回路就把它加入，借助堆和并查集实现时复杂度为O(elog2 e)，适合稀疏图。当各边权值互不相同时，最小生成树是唯一的。"),
    ("p", "求单源最短路径可用Dijkstra算法，它每次从尚未确定最短路径的顶点中选出距离最小的一个加入集合S，并用它更新其余顶点的距离，时间复杂度为O(n²)；该算法不适用于含有负权边的图。Floyd算法通过三重循环，依次允许以v0、v1……作为中间顶点，求出任意两个顶点之间的最短路径，时间复杂度为O(n³)，允许图中有负权边，但不允许有包含负权边的回路。"),
    ("p", "拓扑排序针对有向无环图(DAG)：反复选择一个入度为0的顶点输出，并删去从它出发的所有边，直到图为空；若中途找不到入度为0的顶点，说明图中存在回路。拓扑排序用于AOV网，时间复杂度为O(n+e)。在AOE网中，从源点到汇点的最长路径称为关键路径，关键路径上的活动称为关键活动；适当缩短关键活动的时间可以缩短整个工程的工期，但缩短到一定程度后关键路径可能发生变化。"),
    ("h1", "第七章 查找"),
    ("p", "查找是在数据集合中寻找满足某种条件的数据元素的过程。衡量查找算法效率的主要指标是平均查找长度(ASL)，即查找过程中关键字比较次数的平均值，定义为ASL = ΣPiCi，其中Pi是查找第i个元素的概率，Ci是找到第i个元素所需的比较次数。通常要分别讨论查找成功和查找失败两种情况下的平均查找长度。"),
    ("h2", "7.1 顺序查找"),
    ("p", "顺序查找又称线性查找，它对顺序表和链表都适用。其基本思想是从线性表的一端开始，逐个将记录的关键字与给定值比较，若某个记录的关键字与给定值相等，则查找成功；若扫描完整个表仍没有找到，则查找失败。为了省去每次循环中对下标越界的判断，可以把待查关键字存放在0号单元作为“哨兵”，从表尾向前查找，比较到哨兵时循环必然结束。"),
    ("p", "在等概率情况下，查找第i个元素需要比较n-i+1次，因此查找成功时的平均查找长度为："),
    ("formula", "ASL = (1 + 2 + … + n) / n = (n+1)/2"),
    ("p", "查找失败时需要与全部n个关键字以及哨兵比较，比较次数为n+1。顺序查找的时间复杂度为O(n)，缺点是n较大时效率低，优点是对数据元素的存储方式和是否有序都没有要求。若表中关键字有序，查找失败时不必比较到表尾，一旦遇到比给定值大的关键字就可以提前结束，此时查找失败的平均查找长度降为n/2+n/(n+1)。"),
    ("h2", "7.2 折半查找"),
    ("p", "折半查找又称二分查找，仅适用于有序的顺序表。基本思想是：先将给定值key与表中间位置元素的关键字比较，若相等则查找成功；若key小于中间元素的关键字，则只需在前半部分继续查找；若key大于中间元素的关键字，则在后半部分继续查找。每比较一次，查找区间就缩小一半，直到找到或者区间为空（low>high）为止。由于需要按下标随机访问中间元素，折半查找不适用于链式存储结构。"),
    ("p", "折半查找的过程可以用一棵二叉树来描述，称为判定树。树中每个圆形结点表示一个记录，方形的叶结点表示查找失败的区间。查找成功时的比较次数等于从根到该结点路径上的结点数，查找失败时的比较次数等于走到失败结点路径上的圆形结点数。含有n个元素的判定树的高度为："),
    ("formula", "h = ⌈log2(n+1)⌉"),
    ("p", "因此无论查找成功还是失败，折半查找的比较次数最多不超过⌈log2(n+1)⌉。在等概率情况下，查找成功的平均查找长度约为log2(n+1)-1，所以折半查找的时间复杂度为O(log2 n)，远优于顺序查找的O(n)。例如对长度为11的有序表进行折半查找，判定树高度为4，查找成功时最多比较4次，平均比较次数为(1×1+2×2+3×4+4×4)/11 = 3。"),
    ("p", "需要注意，折半查找要求线性表既有序又顺序存储，插入和删除元素时需要移动大量元素，因此它适用于不常变动而查找频繁的有序表。分块查找（索引顺序查找）吸收了两者的优点：块内元素可以无序，块间必须有序，先在索引表中确定待查记录所在的块，再在块内顺序查找。若把长度为n的表均匀分为b块，每块s个记录，索引表和块内都用顺序查找时，平均查找长度为(b+1)/2+(s+1)/2，当s取√n时取得最小值√n+1。表7-1对几种查找方法做了比较。"),
    ("table", "表7-1 几种查找方法的比较", TABLE_7_1),
    ("h2", "7.3 树表的查找"),
    ("p", "折半查找的效率虽高，却只适合静态查找表。若在查找的同时还需要频繁地插入和删除，可以把查找表组织成树形结构，这样的表称为树表，常见的有二叉排序树、平衡二叉树、B树和B+树等。"),
    ("h3", "7.3.1 二叉排序树"),
    ("p", "二叉排序树(BST)或者是一棵空树，或者是具有下列性质的二叉树：若左子树非空，则左子树上所有结点的关键字都小于根结点的关键字；若右子树非空，则右子树上所有结点的关键字都大于根结点的关键字；左、右子树本身也分别是二叉排序树。对二叉排序树进行中序遍历，可以得到一个递增的有序序列。"),
    ("p", "在二叉排序树上查找时从根结点开始，给定值等于根的关键字则成功，小于则进入左子树，大于则进入右子树。新插入的结点一定是叶结点。删除结点时分三种情况：被删结点是叶结点，直接删除；只有一棵子树，用这棵子树代替它；左右子树都不空，则用它的中序直接后继（或直接前驱）代替它，再删去那个后继（或前驱）。二叉排序树的查找效率取决于树高：树比较平衡时平均查找长度为O(log2 n)；若按有序序列依次插入，树会退化成单支树，平均查找长度变为(n+1)/2，与顺序查找相同。平衡二叉树(AVL)规定任一结点左右子树高度差的绝对值不超过1，从而保证查找的时间复杂度为O(log2 n)。"),
    ("h3", "7.3.2 B树和B+树"),
    ("p", "B树是一种多路平衡查找树，主要用于文件系统和数据库的磁盘索引。一棵m阶B树或者为空树，或者满足：每个结点至多有m棵子树，即至多含有m-1个关键字；若根结点不是终端结点，则至少有两棵子树；除根结点外的所有非叶结点至少有⌈m/2⌉棵子树，即至少含有⌈m/2⌉-1个关键字；结点内的关键字从小到大排列，关键字两侧各有一个指向子树的指针；所有叶结点（即失败结点）都出现在同一层上，不携带信息。B树的高度决定了查找时读磁盘的次数。"),
    ("p", "在B树中插入关键字时，先通过查找确定插入位置所在的终端结点并直接插入；若插入后该结点的关键字个数超过m-1，就要分裂：以中间位置⌈m/2⌉处的关键字为界，左边的关键字留在原结点，右边的关键字放入新结点，中间的关键字上移到父结点；若父结点也因此溢出则继续分裂，可能一直传到根，使树长高一层。删除关键字后若结点的关键字个数少于⌈m/2⌉-1，则先向相邻的兄弟结点借关键字，兄弟不够借时再与兄弟结点以及父结点中的一个关键字合并。"),
    ("p", "B+树是为适应数据库需要而产生的B树变形。一棵m阶B+树满足：每个分支结点至多有m棵子树；非叶根结点至少有两棵子树，其他分支结点至少有⌈m/2⌉棵子树；结点的子树个数与关键字个数相等；所有叶结点包含全部关键字及指向相应记录的指针，叶结点内关键字有序，相邻叶结点按大小顺序链接起来；分支结点中只包含各子结点中关键字的最大值及指向子结点的指针。"),
    ("p", "B树和B+树的主要区别可以归纳为以下几点。（1）B+树中具有n个关键字的结点含有n棵子树，而B树中具有n个关键字的结点含有n+1棵子树；相应地，B+树非根结点的关键字个数范围是⌈m/2⌉～m，B树是⌈m/2⌉-1～m-1。（2）B+树的非叶结点只起索引作用，不含指向记录的指针，记录信息都在叶结点中；B树中每个关键字都对应一个记录的存储地址。（3）B+树的叶结点包含全部关键字，非叶结点中出现的关键字一定会在叶结点中再次出现；B树中各结点的关键字是不重复的。（4）B+树的叶结点用指针链接，既可以从根开始多路查找，也可以从最小关键字开始顺序查找，因而更适合范围查询；在B+树上查找时无论成功与否都要走到叶结点，而B树的查找可能在某个非叶结点就结束。此外，B+树的分支结点不存放记录指针，一个磁盘块能容纳更多关键字，树通常更矮，读磁盘的次数更少。"),
    ("h2", "7.4 散列表"),
    ("p", "散列查找通过散列函数H(key)直接计算记录的存储地址，理想情况下查找的时间复杂度为O(1)。常用的除留余数法为H(key) = key % p，p一般取不大于表长m的最大质数。不同关键字映射到同一地址的现象称为冲突，处理冲突的方法主要有开放定址法（线性探测、平方探测、双散列等）和拉链法。线性探测容易使元素在相邻地址上“聚集”（堆积），降低查找效率。散列表的平均查找长度不直接依赖于n，而是依赖于装填因子α = n/m，α越大，发生冲突的可能性越大。采用开放定址法时不能随便物理删除元素，只能做删除标记，否则会截断其他元素的探测序列。"),
    ("h1", "第八章 排序"),
    ("p", "排序是把一组记录按关键字递增或递减的次序重新排列的过程。若待排序表中有两个关键字相同的元素Ri和Rj，排序前Ri在Rj之前，排序后Ri仍在Rj之前，则称该排序算法是稳定的。稳定性只是算法的一种性质，并不能用来衡量算法的优劣。根据排序时数据是否全部放在内存中，排序可分为内部排序和外部排序。"),
    ("h2", "8.1 插入排序"),
    ("p", "直接插入排序每次将一个待排序的记录按关键字大小插入到前面已排好序的子序列中。最好情况下表已经有序，每个元素只需比较一次而不必移动，时间复杂度为O(n)；最坏情况下表为逆序，比较和移动的次数都达到O(n²)；平均时间复杂度为O(n²)，空间复杂度为O(1)，是稳定的排序方法。折半插入排序用折半查找确定插入位置，减少了比较次数，但移动次数不变，时间复杂度仍为O(n²)。"),
    ("p", "希尔排序先把整个表按一定的增量d分割成若干子表，对每个子表分别进行直接插入排序，然后逐步缩小增量，最后取d=1对整个表再做一次直接插入排序。由于前几趟已使表“基本有序”，最后一趟的效率很高。希尔排序的时间复杂度依赖于增量序列，n在某个范围内时约为O(n^1.3)，最坏为O(n²)。希尔排序是不稳定的，而且只适用于顺序存储的线性表。"),
    ("h2", "8.2 交换排序"),
    ("p", "冒泡排序从后往前（或从前往后）两两比较相邻元素，若为逆序就交换，每一趟都把一个最小（或最大）的元素放到它的最终位置上。若某一趟没有发生交换，说明表已经有序，可以提前结束。冒泡排序的最好时间复杂度为O(n)，平均和最坏为O(n²)，是稳定的。"),
    ("p", "快速排序基于分治法：在待排序表中任取一个元素作为枢轴(pivot)，通过一趟划分把表分成两部分，左边的元素都小于枢轴，右边的元素都大于或等于枢轴，枢轴放在其最终位置上，然后对两个子表递归地进行同样的操作。快速排序的平均时间复杂度为O(nlog2 n)，是所有内部排序算法中平均性能最好的；但当初始序列基本有序或基本逆序时，每次划分都极不均衡，时间复杂度退化为O(n²)。快速排序需要递归工作栈，平均空间复杂度为O(log2 n)，最坏为O(n)，它是不稳定的。"),
    ("h2", "8.3 选择排序"),
    ("p", "简单选择排序每一趟在待排序元素中选出关键字最小的元素，与第i个元素交换。它的比较次数与初始序列无关，始终为n(n-1)/2次，时间复杂度为O(n²)，是不稳定的。"),
    ("p", "堆排序利用大根堆（或小根堆）选出最大（或最小）的元素。序列L[1..n]满足L(i)≥L(2i)且L(i)≥L(2i+1)时称为大根堆。建堆时从最后一个分支结点⌊n/2⌋开始，依次向前对每个结点做“下坠”调整，建堆的时间复杂度为O(n)。之后每次把堆顶元素与堆底元素交换，再把剩余元素调整为堆，共进行n-1趟，每趟调整的时间不超过树高O(log2 n)。因此堆排序在最好、最坏和平均情况下的时间复杂度都是O(nlog2 n)，空间复杂度为O(1)，是不稳定的。堆排序适合从大量数据中选出前k个最大或最小的元素。"),
    ("h2", "8.4 归并排序和基数排序"),
    ("p", "二路归并排序把两个相邻的有序表合并成一个有序表。初始时把n个记录看成n个长度为1的有序子表，两两归并得到⌈n/2⌉个长度为2或1的有序表，如此重复，直到合并成一个长度为n的有序表。每趟归并的时间为O(n)，共需⌈log2 n⌉趟，所以时间复杂度为O(nlog2 n)；合并时需要辅助数组，空间复杂度为O(n)。二路归并排序是稳定的。"),
    ("p", "基数排序不基于比较，而是按关键字各位的值进行“分配”和“收集”。以最低位优先(LSD)为例，对d位、基数为r的关键字，需要进行d趟分配和收集，每趟分配需O(n)时间、收集需O(r)时间，总的时间复杂度为O(d(n+r))，空间复杂度为O(r)，是稳定的。"),
    ("h2", "8.5 各种排序方法的比较"),
    ("p", "从时间复杂度看，直接插入、冒泡和简单选择排序平均为O(n²)；快速排序、堆排序和归并排序平均为O(nlog2 n)。从稳定性看，直接插入、折半插入、冒泡、归并和基数排序是稳定的，希尔、快速、简单选择和堆排序是不稳定的。选择排序方法时：n较小时可用直接插入或简单选择排序；初始序列基本有序时宜选直接插入或冒泡排序；n较大且要求稳定时宜用归并排序；n较大且关键字随机分布时，快速排序的平均效果最好；若要求辅助空间为O(1)且最坏情况也要达到O(nlog2 n)，则选用堆排序。"),
]

L, R, TOP, BOTTOM = 68.0, W - 68.0, 86.0, H - 66.0
BODY, LEAD = 10.5, 18.0
HEAD = {"h1": (18, 30, 16, 1), "h2": (14, 16, 8, 2), "h3": (12, 10, 6, 3)}  # size, before, after, toc level


def book_page(doc):
    page = new_page(doc)
    draw(page, L, 48, "数据结构复习讲义 · 408考研", 9, (0.35, 0.35, 0.35))
    page.draw_line((L, 55), (R, 55), color=(0.5, 0.5, 0.5), width=0.6)
    return page


def draw_table(page, y, rows, size=9.5):
    colw = [72, 130, 104, 153]
    rowh = 22.0
    x0 = L
    for r, row in enumerate(rows):
        x = x0
        for c, cell in enumerate(row):
            assert width(cell, size) < colw[c] - 8, cell
            draw(page, x + 5, y + rowh / 2 + size * 0.35, cell, size)
            x += colw[c]
        y += rowh
    top, bot = y - rowh * len(rows), y
    for i in range(len(rows) + 1):  # horizontal rules
        page.draw_line((x0, top + i * rowh), (x0 + sum(colw), top + i * rowh), width=0.8 if i in (0, 1, len(rows)) else 0.5)
    x = x0
    for i in range(len(colw) + 1):  # vertical rules
        page.draw_line((x, top), (x, bot), width=0.5)
        x += colw[i] if i < len(colw) else 0
    return bot


def make_book(path):
    doc = fitz.open()
    page, y, toc = None, BOTTOM, []
    for item in BOOK:
        kind = item[0]
        if kind == "h1" or page is None:
            page, y = book_page(doc), TOP
        if kind in HEAD:
            size, before, after, level = HEAD[kind]
            if y > TOP:
                y += before
            if y + size + after + 3 * LEAD > BOTTOM:  # keep heading with following text
                page, y = book_page(doc), TOP
            y += size
            x = (W - width(item[1], size)) / 2 if kind == "h1" else L
            draw(page, x, y, item[1], size)
            toc.append([level, item[1], doc.page_count])
            y += after
        elif kind in ("p", "formula"):
            if kind == "p":
                lines, ind = wrap(item[1], BODY, R - L, indent=2 * BODY), 2 * BODY
            else:
                lines, ind = [item[1]], (R - L - width(item[1], 11)) / 2
                y += 4
            for i, line in enumerate(lines):
                if y + LEAD > BOTTOM:
                    page, y = book_page(doc), TOP
                y += LEAD
                draw(page, L + (ind if i == 0 else 0), y - 4, line, 11 if kind == "formula" else BODY)
            y += 6 if kind == "formula" else 3
        elif kind == "table":
            need = LEAD + 22 * len(item[2]) + 16
            if y + need > BOTTOM:
                page, y = book_page(doc), TOP
            y += LEAD + 4
            draw(page, (W - width(item[1], BODY)) / 2, y - 4, item[1], BODY)
            y = draw_table(page, y + 4, item[2]) + 10
    for n, page in enumerate(doc, 1):  # footers last, so they follow the body in reading order
        foot = f"第 {n} 页"
        draw(page, (W - width(foot, 9)) / 2, H - 36, foot, 9, (0.35, 0.35, 0.35))
    finish(doc, path, toc)


# ---------------------------------------------------------------- scanned exam paper
PAPER_TITLE = "2024年全国硕士研究生招生考试计算机学科专业基础（模拟卷）"
CHOICES = [
    ("1. 对长度为15的有序顺序表进行折半查找，查找成功时最多需要比较的次数是（  ）。",
     ["3", "4", "5", "15"]),
    ("2. 下列排序算法中，时间复杂度为O(nlog2 n)且稳定的是（  ）。",
     ["快速排序", "堆排序", "二路归并排序", "希尔排序"]),
    ("3. 一个含有n个顶点的无向连通图，它所包含的边数至少是（  ）。",
     ["n-1", "n", "n+1", "n(n-1)/2"]),
    ("4. 在一棵5阶B树中，除根结点以外的每个非叶结点中至少含有的关键字个数是（  ）。",
     ["1", "2", "3", "4"]),
    ("5. 某系统中有3个并发进程，每个进程都需要同类资源2个，为保证系统不会发生死锁，该类资源的最少个数是（  ）。",
     ["3", "4", "5", "6"]),
    ("6. 在TCP的拥塞控制中，当发送方检测到超时时，慢开始门限ssthresh会被设置为（  ）。",
     ["1个最大报文段长度", "保持原值不变", "发生超时时拥塞窗口值的一半", "发生超时时拥塞窗口值的两倍"]),
]
ESSAYS = [
    ("41.（10分）已知有序顺序表中的关键字依次为5，12，18，23，31，37，44，56，62，70，85，采用折半查找（mid向下取整）。请回答下列问题。",
     ["（1）画出对该表进行折半查找的判定树，并说明查找关键字62时依次与哪些关键字进行了比较。",
      "（2）计算在等概率情况下查找成功和查找失败的平均查找长度。",
      "（3）折半查找的时间复杂度是多少？它对存储结构有什么要求？"]),
    ("42.（10分）某进程在内存中分配了3个物理页框，初始时均为空，进程依次访问的页号序列为1，2，3，4，1，2，5，1，2，3，4，5。请回答下列问题。",
     ["（1）采用先进先出(FIFO)页面置换算法时，共发生多少次缺页？",
      "（2）采用最近最久未使用(LRU)页面置换算法时，共发生多少次缺页？",
      "（3）若把页框数增加到4个，FIFO算法的缺页次数会怎样变化？这种现象称为什么？"]),
]
PS, PLEAD, PL, PR = 12.0, 21.0, 62.0, W - 62.0


def layout_paper():
    doc = fitz.open()
    page = new_page(doc)
    y = 70.0
    for text, size in [(PAPER_TITLE, 15), ("（考试时间180分钟，满分150分）", 12)]:
        draw(page, (W - width(text, size)) / 2, y, text, size)
        y += 30
    y += 6

    def para(text, indent=0.0, size=PS):
        nonlocal y
        for line in wrap(text, size, PR - PL - indent):
            y += PLEAD
            draw(page, PL + indent, y, line, size)

    para("一、单项选择题：第1～6小题，每小题2分，共12分。下列每题给出的四个选项中，只有一个选项最符合试题要求。", size=12.5)
    for stem, opts in CHOICES:
        y += 8
        para(stem)
        labeled = [f"{k}. {o}" for k, o in zip("ABCD", opts)]
        colw = (PR - PL - 24) / 4
        if all(width(o, PS) < colw - 6 for o in labeled):
            groups = [labeled]
        else:
            groups = [labeled[:2], labeled[2:]]
            colw = (PR - PL - 24) / 2
        for g in groups:
            y += PLEAD
            for i, o in enumerate(g):
                draw(page, PL + 24 + i * colw, y, o, PS)
    draw(page, (W - width("第 1 页（共 2 页）", 10.5)) / 2, H - 40, "第 1 页（共 2 页）", 10.5)
    page = new_page(doc)
    y = 60.0
    para("二、综合应用题：第41～42小题，共20分。", size=12.5)
    for stem, parts in ESSAYS:
        y += 12
        para(stem)
        for p in parts:
            para(p, indent=24)
        y += 150  # blank answer space
    draw(page, (W - width("第 2 页（共 2 页）", 10.5)) / 2, H - 40, "第 2 页（共 2 页）", 10.5)
    return doc


def scan(page, rng, dpi=150):
    """Render page -> noisy grayscale 'scan' -> JPEG bytes."""
    pix = page.get_pixmap(dpi=dpi, colorspace=fitz.csGRAY, alpha=False)
    a = np.frombuffer(pix.samples, dtype=np.uint8).reshape(pix.h, pix.stride)[:, : pix.w].astype(np.float32)
    a = 0.25 * np.roll(a, 1, 1) + 0.5 * a + 0.25 * np.roll(a, -1, 1)  # slight blur
    a = 0.25 * np.roll(a, 1, 0) + 0.5 * a + 0.25 * np.roll(a, -1, 0)
    a = a * 0.9 + 14  # paper is not pure white, ink not pure black
    a += rng.normal(0, 8, a.shape)
    for _ in range(120):  # dust specks
        yy, xx = rng.integers(0, a.shape[0] - 3), rng.integers(0, a.shape[1] - 3)
        a[yy: yy + rng.integers(1, 4), xx: xx + rng.integers(1, 4)] = rng.integers(40, 140)
    a = np.clip(a, 0, 255).astype(np.uint8)
    out = fitz.Pixmap(fitz.csGRAY, pix.w, pix.h, a.tobytes(), False)
    out.set_dpi(dpi, dpi)
    return out.tobytes("jpg", jpg_quality=55)


def make_scan(path):
    src = layout_paper()
    rng = np.random.default_rng(408)
    doc = fitz.open()
    for sp in src:
        page = doc.new_page(width=W, height=H)
        page.insert_image(page.rect, stream=scan(sp, rng))
    src.close()
    finish(doc, path)


# ---------------------------------------------------------------- answer booklet of the mock paper
BOOKLET_TITLE = "2024年计算机专业基础综合模拟卷 参考答案及解析"
BOOKLET = [  # (number, answer, explanation): our own solutions to CHOICES and ESSAYS above
    (1, "B", "折半查找的判定树高度为⌈log2(n+1)⌉，n=15时为4，所以查找成功时最多比较4次。"),
    (2, "C", "快速排序、堆排序和希尔排序都不稳定；二路归并排序的时间复杂度为O(nlog2 n)，并且是稳定的。"),
    (3, "A", "n个顶点的无向连通图至少要有n-1条边，边数最少时它是一棵生成树。"),
    (4, "B", "m阶B树中除根以外的非叶结点至少有⌈m/2⌉棵子树，即至少⌈m/2⌉-1个关键字；m=5时为2个。"),
    (5, "B", "每个进程最多需要2个资源，先给每个进程各分配1个，再多1个资源就能保证某个进程运行完并释放资源，最少为3×(2-1)+1=4个。"),
    (6, "C", "发生超时时，ssthresh被设置为当时拥塞窗口值的一半，拥塞窗口重新置为1个最大报文段，然后执行慢开始算法。"),
]
BOOKLET_ESSAYS = [
    (41, ["（1）判定树的根是第6个关键字37，左子树的根是18，右子树的根是62。查找62时先与37比较，62大于37，"
          "转向右半部分，再与62比较，相等，查找成功，共比较2次。",
          "（2）判定树第1层有1个结点，第2层2个，第3层4个，第4层4个。查找成功的平均查找长度为"
          "(1×1+2×2+3×4+4×4)/11=33/11=3。失败结点共12个，其中4个在第3层结点之下、8个在第4层结点之下，"
          "查找失败的平均查找长度为(4×3+8×4)/12=44/12≈3.67。",
          "（3）折半查找的时间复杂度为O(log2 n)。它要求线性表采用顺序存储结构，并且元素按关键字有序排列。"]),
    (42, ["（1）FIFO：依次装入1、2、3后，访问4、1、2、5时都要置换最早装入的页，之后访问1、2命中，"
          "再访问3、4时又缺页，访问5命中，共发生9次缺页。",
          "（2）LRU：前7次访问1、2、3、4、1、2、5都缺页，访问1、2命中，之后访问3、4、5又都缺页，共发生10次缺页。",
          "（3）页框增加到4个后，FIFO的缺页次数从9次增加到10次，分配的页框增多缺页反而增加，这种现象称为Belady异常。"]),
]


def make_booklet(path):
    """A text PDF: the answer key and explanations of the mock paper (merged with its questions)."""
    doc = fitz.open()
    page, y = new_page(doc), 70.0

    def line(text, size=BODY, indent=0.0, gap=0.0):
        nonlocal page, y
        y += gap
        for i, part in enumerate(wrap(text, size, R - L - indent)):
            if y + LEAD > BOTTOM:
                page, y = new_page(doc), TOP
            y += LEAD
            draw(page, L + (indent if i == 0 else 0), y, part, size)

    draw(page, (W - width(BOOKLET_TITLE, 15)) / 2, y, BOOKLET_TITLE, 15)
    y += 16
    line("一、单项选择题", 12.5, gap=10)
    for n, key, why in BOOKLET:
        line(f"{n}.【参考答案】{key}", gap=6)
        line(f"【解析】{why}")
    line("二、综合应用题", 12.5, gap=14)
    for n, parts in BOOKLET_ESSAYS:
        line(f"{n}.【答案解析】", gap=6)
        for part in parts:
            line(part, indent=0)
    finish(doc, path)


# ---------------------------------------------------------------- markdown note
OS_MD = r"""# 操作系统笔记

> 个人复习笔记，覆盖进程管理、死锁和虚拟内存中的高频考点。

## 进程与线程

进程是程序的一次执行过程，是系统进行资源分配和调度的独立单位；引入线程后，线程成为处理机调度的基本单位，而进程仍是资源分配的基本单位。同一进程内的线程共享进程的地址空间和打开的文件，线程切换的开销比进程切换小得多。

### 进程的状态

- **运行态**：进程正在处理机上运行。
- **就绪态**：进程已获得除处理机以外的全部资源，一旦得到处理机就可以运行。
- **阻塞态**：进程在等待某一事件（如I/O完成）而暂停运行，即使处理机空闲也不能运行。

就绪→运行由调度引起；运行→阻塞是进程主动的行为（例如请求I/O）；阻塞→就绪是被动的，需要其他进程或中断处理程序来唤醒。

### 调度指标

周转时间是作业从提交到完成所经历的时间，带权周转时间定义为 $W = \frac{T}{T_s}$，其中 $T$ 为周转时间，$T_s$ 为实际运行时间。短作业优先(SJF)算法的平均等待时间最少，但可能使长作业“饥饿”；高响应比优先算法用响应比 $R = \frac{T_w + T_s}{T_s}$ 兼顾了等待时间和运行时间。

## 死锁

死锁是指多个进程因竞争资源而造成的一种互相等待的僵局，若无外力作用，这些进程都无法向前推进。产生死锁的四个必要条件是：互斥条件、不剥夺条件、请求并保持条件和循环等待条件。破坏其中任意一个条件就可以预防死锁。

若系统中有 $n$ 个进程，每个进程最多需要 $k$ 个同类资源，则保证不发生死锁的最少资源数为 $n(k-1)+1$。

### 银行家算法

银行家算法是最有代表性的死锁避免算法。系统在每次分配资源之前，先试探性地分配，然后执行安全性检查：若分配后系统仍处于安全状态（存在一个安全序列，使每个进程都能顺利完成），才真正分配；否则撤销试探分配，让进程等待。安全性检查的核心是不断寻找 `Need[i] <= Work` 的进程，假设它运行结束并归还资源。

```c
#include <stdio.h>
#include <stdbool.h>
#define N 5   /* 进程数 */
#define M 3   /* 资源种类数 */

/* 安全性检查：返回true表示系统处于安全状态 */
bool is_safe(int avail[M], int alloc[N][M], int need[N][M]) {
    int work[M];
    bool finish[N] = {false};
    for (int j = 0; j < M; j++) work[j] = avail[j];
    for (int done = 0; done < N; ) {
        bool found = false;
        for (int i = 0; i < N; i++) {
            if (finish[i]) continue;
            int j = 0;
            while (j < M && need[i][j] <= work[j]) j++;
            if (j == M) {              /* 进程i可以运行完成 */
                for (j = 0; j < M; j++) work[j] += alloc[i][j];
                finish[i] = true; done++; found = true;
                printf("P%d ", i);
            }
        }
        if (!found) return false;      /* 找不到可完成的进程 */
    }
    return true;
}
```

## 页面置换算法

请求分页系统中，访问的页面不在内存时产生缺页中断；若内存中没有空闲页框，就要按某种算法选出一页换出。缺页率为 $f = \frac{F}{A}$，其中 $F$ 是缺页次数，$A$ 是页面访问总次数。

| 页面置换算法 | 是否有Belady异常 | 特点 |
|---|---|---|
| 最佳置换(OPT) | 否 | 淘汰以后永不使用或最长时间不再访问的页面，缺页率最低，但无法实现，只作为评价标准 |
| 先进先出(FIFO) | 是 | 淘汰最早进入内存的页面，实现简单，但与进程实际运行规律不符 |
| 最近最久未使用(LRU) | 否 | 淘汰最近最长时间未被访问的页面，性能接近OPT，但需要寄存器或栈等硬件支持，开销大 |

Belady异常是指分配给进程的物理页框数增加时，缺页次数反而增加的现象，只有FIFO算法会出现。时钟(CLOCK)算法给每个页框设置一个访问位，循环扫描时跳过访问位为1的页面（并将其清零），是对LRU的一种近似。

### 快表与有效访问时间

设快表(TLB)的命中率为 $\alpha$，查快表的时间为 $\lambda$，访问一次内存的时间为 $t$，则有效访问时间为 $EAT = \alpha(\lambda + t) + (1-\alpha)(\lambda + 2t)$。多级页表可以减少页表占用的连续内存，但每增加一级就多一次访存；对于 $2^{32}$ 字节的逻辑地址空间和 $4$KB 的页面，页号部分有 $\log_2 (2^{32}/2^{12}) = 20$ 位。
"""

# ---------------------------------------------------------------- GBK text note
NET_TXT = """计算机网络笔记（传输层）

一、传输层概述
传输层位于网络层之上、应用层之下，为运行在不同主机上的应用进程之间提供端到端的逻辑通信。网络层负责把分组从一台主机送到另一台主机，而传输层通过端口号把数据交付给主机中正确的进程，这就是复用和分用。传输层有两个主要协议：UDP是无连接的，首部只有8个字节，不保证可靠交付，适合实时性要求高的应用，例如视频会议和DNS查询；TCP是面向连接的，提供可靠、按序、无差错、不重复的字节流服务，首部最短20字节，支持流量控制和拥塞控制。

二、TCP连接管理
1. 三次握手建立连接
（1）客户端发送连接请求报文段，首部中SYN=1，并选择初始序号seq=x，之后进入SYN-SENT状态。SYN报文段不能携带数据，但要消耗一个序号。
（2）服务器收到请求后，如果同意建立连接，就回送确认报文段，其中SYN=1，ACK=1，确认号ack=x+1，同时为自己选择初始序号seq=y，进入SYN-RCVD状态。
（3）客户端收到确认后，再向服务器发送确认报文段，ACK=1，seq=x+1，ack=y+1，双方都进入ESTABLISHED状态。第三个报文段可以携带数据，不携带数据时不消耗序号。
为什么要三次握手而不是两次？主要是为了防止已经失效的连接请求报文段突然又传到服务器，使服务器误以为是新的连接请求而白白等待、浪费资源。
2. 四次挥手释放连接
客户端发送FIN=1、seq=u的报文段，进入FIN-WAIT-1状态；服务器发回确认ack=u+1，进入CLOSE-WAIT状态，此时连接处于半关闭，服务器仍可以向客户端发送数据；服务器数据发完后发送FIN=1的报文段，进入LAST-ACK状态；客户端收到后发出最后的确认并进入TIME-WAIT状态，必须等待2MSL（最长报文段寿命的两倍）后才真正关闭。等待2MSL一是保证最后一个ACK能到达服务器，二是让本连接中所有旧的报文段都从网络中消失。

三、拥塞控制
发送方维持一个拥塞窗口cwnd，实际的发送窗口取接收窗口rwnd和拥塞窗口cwnd中的较小值。判断网络拥塞的依据是出现超时或收到重复确认。
1. 慢开始：连接刚建立时令cwnd=1个最大报文段(MSS)，每收到一个对新报文段的确认，cwnd就加1，因此每经过一个传输轮次（一个往返时间RTT），cwnd就加倍，呈指数增长，直到达到慢开始门限ssthresh。
2. 拥塞避免：当cwnd≥ssthresh后，每经过一个RTT只把cwnd加1，使拥塞窗口按线性规律缓慢增大，这称为“加法增大”。
3. 出现超时：把ssthresh设为出现拥塞时cwnd的一半（但不能小于2），再把cwnd重置为1，重新执行慢开始，这称为“乘法减小”。
4. 快重传：接收方每收到一个失序的报文段就立即发出对已收到数据的重复确认。发送方只要连续收到3个重复的确认，就立即重传对方尚未收到的报文段，而不必等待重传计时器超时。
5. 快恢复：发送方收到3个重复确认时，认为网络并没有严重拥塞，于是把ssthresh减为当前cwnd的一半，并令cwnd等于新的ssthresh（有的实现取ssthresh+3），然后直接进入拥塞避免阶段，而不是从1开始慢开始。
例：设ssthresh初值为16，cwnd从1开始，各轮次依次为1、2、4、8、16，之后进入拥塞避免变为17、18……若在cwnd=24时发生超时，则ssthresh变为12，cwnd重新从1开始慢开始；若在cwnd=24时收到3个重复确认，则ssthresh=12，cwnd=12，继续拥塞避免。

四、流量控制与拥塞控制的区别
流量控制是点对点的问题，目的是让发送方的发送速率不超过接收方的接收能力，由接收方通过确认报文段中的窗口字段rwnd告知发送方；拥塞控制是全局性的问题，涉及所有主机和路由器，目的是防止过多的数据注入网络，使网络中的路由器或链路不致过载。
"""


# ---------------------------------------------------------------- syllabus (our own, shortened)
SYLLABUS_MD = """# 计算机专业基础综合考试大纲（样例）

> examrag 示例语料自带的简化考纲，由本项目自行编写，只列出部分考点，用来演示考纲地图、按考纲筛选和缺口分析。

## 数据结构

【考查目标】
1.理解常用数据结构的逻辑结构、存储结构及其基本操作。
2.能够分析算法的时间复杂度和空间复杂度，并用C语言实现算法。

一、线性表
(一)顺序表和链表的基本操作
(二)线性表的综合应用
二、图
(一)图的基本概念
(二)图的存储结构
1.邻接矩阵
2.邻接表
(三)图的遍历
(四)图的应用
1.最小生成树
2.最短路径
3.拓扑排序与关键路径
三、查找
(一)顺序查找和分块查找
(二)折半查找
(三)二叉排序树与平衡二叉树
(四)B 树和B+树
(五)散列表
四、排序
(一)插入排序
(二)交换排序
(三)选择排序
(四)归并排序和基数排序
(五)各种排序方法的比较

## 计算机组成原理

【考查目标】
1.理解计算机各部件的工作原理和相互连接方式。

一、数据的表示和运算
(一)定点数的表示和运算
(二)浮点数的表示和运算
二、存储器层次结构
(一)主存储器与CPU的连接
(二)高速缓冲存储器(Cache)
(三)虚拟存储器

## 操作系统

【考查目标】
1.理解操作系统对进程、内存和文件的管理方法。

一、进程管理
(一)进程与线程
(二)处理机调度
(三)同步与互斥
(四)死锁
1、死锁的概念与必要条件
2、死锁避免与银行家算法
二、内存管理
(一)分页存储管理
(二)虚拟内存管理
1、页面置换算法
2、快表与有效访问时间
三、文件管理
(一)文件的逻辑结构和目录
(二)磁盘调度

## 计算机网络

【考查目标】
1.理解网络体系结构和典型协议的工作原理。

一、网络层
(一)IPv4地址与子网划分
(二)路由算法
二、传输层
(一)UDP协议
(二)TCP协议
1.TCP连接管理
2.TCP流量控制与拥塞控制
"""


def main():
    ap = argparse.ArgumentParser(description="Write the shipped sample corpus.")
    ap.add_argument("--out", type=Path, default=SAMPLE_DIR, help="output folder (default: data/raw/)")
    out = ap.parse_args().out
    out.mkdir(parents=True, exist_ok=True)
    names = {"数据结构复习讲义.pdf", "2024年计算机专业基础综合模拟卷_扫描版.pdf", "2024年计算机专业基础综合模拟卷_参考答案.pdf",
             "操作系统笔记.md", "计算机网络笔记.txt", "考试大纲（样例）.md"}
    make_book(out / "数据结构复习讲义.pdf")
    make_scan(out / "2024年计算机专业基础综合模拟卷_扫描版.pdf")
    make_booklet(out / "2024年计算机专业基础综合模拟卷_参考答案.pdf")
    (out / "操作系统笔记.md").write_text(OS_MD, encoding="utf-8")
    (out / "计算机网络笔记.txt").write_bytes(NET_TXT.encode("gbk"))
    (out / "考试大纲（样例）.md").write_text(SYLLABUS_MD, encoding="utf-8")
    for name in sorted(names):
        print(f"{(out / name).stat().st_size:>9}  {name}")


if __name__ == "__main__":
    main()
