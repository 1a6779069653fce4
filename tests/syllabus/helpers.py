"""A small syllabus and material of our own, with the places a careful reader would give them."""

from __future__ import annotations

from pipeline.models import Chunk
from pipeline.syllabus.outline import read_outline
from pipeline.syllabus.sources import make_syllabus

SYLLABUS_LINES = """数据结构
【考查目标】
1.掌握常用数据结构。
一、树与二叉树
(一)二叉树的遍历
(二)树与二叉树的应用
1.二叉排序树
2.平衡二叉树
3.哈夫曼树和哈夫曼编码
二、图
(一)图的遍历
1.深度优先搜索
2.广度优先搜索
(二)图的基本应用
1.最短路径
2.拓扑排序
三、查找
(一)顺序查找法
(二)折半查找法
(三)散列(Hash)表
四、排序
(一)插入排序
(二)快速排序
(三)堆排序
操作系统
一、进程管理
(一)进程与线程
(二)同步与互斥
1.信号量
2.经典同步问题
(三)死锁
二、内存管理
(一)分页存储管理
(二)虚拟内存管理
1.页面置换算法
""".splitlines()

# (source, headings, text): notes organised the way real notes are, written for this test
NOTES = [
    ("notes/Data-Structure/tree.md", ["树", "二叉树的遍历"], "先序遍历先访问根结点，再遍历左子树和右子树；中序遍历先左子树再根结点再右子树；后序遍历最后访问根结点。由先序和中序遍历序列可以唯一确定一棵二叉树。"),
    ("notes/Data-Structure/tree.md", ["树", "哈夫曼树"], "哈夫曼树是带权路径长度WPL最小的二叉树，构造时每次选两个权值最小的结点合并，n个叶结点的哈夫曼树共有2n-1个结点，没有度为1的结点。"),
    ("notes/Data-Structure/search.md", ["查找", "折半查找"], "折半查找要求有序顺序表，每次与中间元素mid比较，把区间缩小一半。折半查找的判定树高度为⌈log2(n+1)⌉，查找成功的平均查找长度ASL约为log2(n+1)-1。"),
    ("notes/Data-Structure/search.md", ["查找", "顺序查找"], "顺序查找从表的一端开始逐个比较关键字，设置哨兵可以省去越界判断，等概率下查找成功的平均查找长度为(n+1)/2。"),
    ("notes/Data-Structure/search.md", ["查找", "散列查找"], "散列表用散列函数计算存储地址，冲突可用线性探测或拉链法处理，装填因子越大冲突越多，线性探测会产生堆积。"),
    ("notes/Data-Structure/search.md", ["查找", "树形查找", "平衡二叉树"], "平衡二叉树中任一结点左右子树高度差的绝对值不超过1，插入结点后失衡时做LL、RR、LR或RL旋转调整，平衡因子为左右子树高度之差。"),
    ("notes/Data-Structure/graph.md", ["图", "图的遍历", "深度优先"], "深度优先搜索DFS从起点出发沿一条路径尽量深入，退回后再访问其他邻接点，通常用递归或栈实现。"),
    ("notes/Data-Structure/graph.md", ["图", "图的应用", "拓扑排序"], "拓扑排序每次输出一个入度为0的顶点并删去它的出边，AOV网若能得到全部顶点的拓扑序列则没有回路。"),
    ("notes/Data-Structure/graph.md", ["图", "图的应用", "最短路径"], "Dijkstra算法求单源最短路径，每次选距离最小的顶点加入集合S并更新其余顶点的距离，不适用于负权边；Floyd算法求任意两点之间的最短路径。"),
    ("notes/Data-Structure/sort.md", ["排序", "快速排序"], "快速排序选一个枢轴进行划分，左边元素都小于枢轴、右边都大于枢轴，平均时间复杂度O(nlog2n)，是不稳定的排序。"),
    ("notes/Data-Structure/sort.md", ["排序", "堆排序"], "堆排序先建大根堆，再反复把堆顶与堆底交换并向下调整，建堆时间O(n)，排序时间O(nlog2n)。"),
    ("notes/Data-Structure/sort.md", ["排序", "插入排序"], "直接插入排序把待排序元素插入到前面已经有序的子序列中，最好情况比较n-1次，是稳定的排序。"),
    ("notes/Operate-System/process.md", ["进程管理", "进程与线程"], "进程是资源分配的基本单位，线程是处理机调度的基本单位，同一进程内的线程共享地址空间；进程有就绪、运行、阻塞三种基本状态。"),
    ("notes/Operate-System/process.md", ["进程管理", "信号量"], "信号量机制用P操作申请资源、V操作释放资源，互斥信号量初值为1；生产者消费者问题中用empty、full和mutex三个信号量实现同步与互斥。"),
    ("notes/Operate-System/process.md", ["进程管理", "死锁"], "死锁的四个必要条件是互斥、不剥夺、请求并保持和循环等待；银行家算法在分配资源前做安全性检查，避免死锁。"),
    ("notes/Operate-System/memory.md", ["内存管理", "页面置换"], "页面置换算法有OPT、FIFO、LRU和CLOCK，FIFO会出现Belady异常，LRU淘汰最近最久未使用的页面；缺页率等于缺页次数除以访问次数。"),
    ("notes/Operate-System/memory.md", ["内存管理", "分页"], "分页存储管理把逻辑地址分为页号和页内偏移，通过页表把页号转换为物理块号，快表TLB可以减少访存次数。"),
]

# (year, number, qtype, stem, analysis, linked note paths, expected [subject, chapter(, section)])
QUESTIONS = [
    (2030, 1, "choice", "对长度为12的有序表进行二分比较，判定树的高度和最多比较次数分别是多少", "判定树高度为⌈log2(n+1)⌉。",
     [["查找", "折半查找"]], ["数据结构", "三、查找", "(二)折半查找法"]),
    (2030, 2, "choice", "下列序列中，不可能是有向图拓扑序列的是", "每次选取入度为0的顶点输出。",
     [["图", "图的应用", "拓扑排序"]], ["数据结构", "二、图", "(二)图的基本应用"]),
    (2030, 3, "choice", "若将关键字依次插入初始为空的平衡二叉树，出现LR型失衡时应做的调整是", "考查平衡二叉树的旋转调整。",
     [["查找", "树形查找", "平衡二叉树"]], ["数据结构", "一、树与二叉树", "(二)树与二叉树的应用"]),
    (2030, 4, "choice", "用快速排序对序列进行一趟划分后，枢轴所在位置是", "划分后枢轴左边元素都小于它。",
     [["排序", "快速排序"]], ["数据结构", "四、排序", "(二)快速排序"]),
    # numbered like a 数据结构 question, but tests semaphores: the number is a weak prior only
    (2030, 5, "choice", "生产者与消费者共享一个缓冲区，为实现同步与互斥需要设置的信号量是", "考查信号量的P、V操作。",
     [["进程管理", "信号量"]], ["操作系统", "一、进程管理", "(二)同步与互斥"]),
    (2030, 28, "choice", "采用LRU页面置换算法时，下列访问序列产生的缺页次数是", "LRU淘汰最近最久未使用的页面。",
     [["内存管理", "页面置换"]], ["操作系统", "二、内存管理", "(二)虚拟内存管理"]),
    (2030, 29, "choice", "系统中有3个进程竞争同类资源，为保证不发生死锁，资源数至少为", "考查死锁的必要条件和银行家算法。",
     [["进程管理", "死锁"]], ["操作系统", "一、进程管理", "(三)死锁"]),
]


def chunk(cid: str, kind: str, source: str, path: list[str], text: str, **kw) -> Chunk:
    return Chunk(chunk_id=cid, doc_id=kw.pop("doc_id", source), source=source, kind=kind, chapter_path=path,
                 chunk_position=1, text=text, **kw)


def question_chunk(year, number, qtype, stem, analysis, links) -> Chunk:
    text = f"{year}年 第{number}题（单项选择题）\n{stem}\nA. 甲\nB. 乙\n答案：A\n解析：{analysis}"
    return chunk(f"q{year}-{number}", "question", "papers/paper.pdf", ["卷", f"第{number}题"], text, year=year,
                 number=number, qtype=qtype, chapter_paths=links)


def fixture(rules):
    syllabus = make_syllabus(read_outline(SYLLABUS_LINES, rules), "syllabus.md", "md", doc_id="syl")
    chunks = [chunk(f"n{i}", "note", src, path, text) for i, (src, path, text) in enumerate(NOTES)]
    chunks.append(chunk("s1", "note", "syllabus.md", ["数据结构"], "三、查找 (一)顺序查找法 (二)折半查找法", doc_id="syl"))
    chunks += [question_chunk(*q[:6]) for q in QUESTIONS]
    return syllabus, chunks
